def g(a):
    yield *a, 9
    x = yield
    print("x", x)
    y = yield 1, 2
    print("y", y)
    z = (yield) or "default"
    print(z)
    print(f"{(yield 'in f')}")
    l = [(yield 'in list'), 5]
    print(l)
    yield from (yield 'gen')
it = g([1, 2])
print(next(it), next(it), it.send("sx"), it.send("sy"), it.send(None), it.send("F"), it.send("L"))
print(it.send([7, 8]), next(it, "end"))
h = lambda x: (yield x)
print(list(h(3)))
def k():
    return (yield)
kk = k(); next(kk)
try:
    kk.send(42)
except StopIteration as e:
    print("returned", e.value)
