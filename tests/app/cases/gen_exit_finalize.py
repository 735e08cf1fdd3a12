def g(name):
    try:
        yield 1
        yield 2
    finally:
        print("cleanup", name)
b = g("b")
next(b)
a = g("a")
next(a)
def holder():
    inner = g("inner")
    next(inner)
    yield inner
h = holder()
next(h)
lst = [g("in list")]
next(lst[0])
print("end of script")
def outer():
    yield from g("delegated")
o = outer()
next(o)
del o
print("after del")
