def deep(n):
    return 0 if n == 0 else deep(n - 1) + 1

def gen(n):
    yield deep(n)

print(next(gen(50)))
try:
    next(gen(100000))
except RecursionError as e:
    print("RecursionError", e)

def nested(n):
    if n == 0:
        yield "bottom"
    else:
        yield from nested(n - 1)

print(next(nested(100)))
try:
    next(nested(5000))
except RecursionError as e:
    print("RecursionError", e)
print("still fine", sum(x for x in range(10)))
