def inner(n):
    yield n
    yield 1 / (n - n)

def outer():
    yield from inner(3)

for v in outer():
    print(v)
