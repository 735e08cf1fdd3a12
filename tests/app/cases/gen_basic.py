def f(n):
    for i in range(n):
        yield i * i
    return "done"

g = f(3)
print(g)
print(next(g), next(g), next(g))
try:
    next(g)
except StopIteration as e:
    print("stop", e.value, repr(e))
print(list(f(5)))
print(sum(x for x in range(10)))
h = (x * 2 for x in [1, 2, 3] if x != 2)
print(h)
print(list(h), list(h))
def acc():
    total = 0
    while True:
        v = yield total
        if v is None:
            break
        total += v
a = acc()
print(next(a), a.send(3), a.send(4))
def walk(t):
    yield t[0]
    for c in t[1]:
        yield from walk(c)
print(list(walk((1, [(2, [(4, [])]), (3, [])]))))
