def gen():
    try:
        yield 1
        yield 2
    finally:
        print("finally ran")

g = gen()
print(next(g))
g.close()
print("closed")
g = gen()
for x in g:
    print("got", x)
    break
del g
print("after del")

def bad():
    yield 1
    raise ValueError("boom")

try:
    for v in bad():
        print(v)
except ValueError as e:
    print("caught", e)

def catcher():
    while True:
        try:
            yield
        except KeyError as e:
            print("inner caught", repr(e))
            yield "handled"

c = catcher()
next(c)
print(c.throw(KeyError("k")))
print(next(c))
try:
    c.throw(ValueError, "v")
except ValueError as e:
    print("outer", repr(e))
print(next(c, "exhausted"))

class Module:
    def __init__(self, name, kids):
        self.name = name
        self.kids = kids
    def children(self):
        for k in self.kids:
            yield k
    def named_modules(self, prefix=""):
        yield prefix, self
        for k in self.children():
            yield from k.named_modules(prefix + "." + k.name if prefix else k.name)

tree = Module("root", [Module("a", [Module("c", [])]), Module("b", [])])
print([n for n, m in tree.named_modules()])
print(type(tree.children()).__name__ if hasattr(type(tree.children()), "__name__") else "?")
r = repr(tree.children())
print(r[:r.index(" at ")])

def stopper():
    yield 1
    raise StopIteration
try:
    list(stopper())
except RuntimeError as e:
    print("RuntimeError:", e)

def ret():
    x = yield 1
    return x * 2
def outer():
    r = yield from ret()
    print("inner returned", r)
    yield r
o = outer()
print(next(o))
print(o.send(21))

a, b, *rest = (i for i in range(5))
print(a, b, rest)
g = gen()
print(iter(g) is g)
print(3 in (x for x in range(5)))
g.close()

def fresh():
    yield 1
try:
    fresh().send(5)
except TypeError as e:
    print(e)
def stubborn():
    try:
        yield 1
    except GeneratorExit:
        yield 2
s = stubborn()
next(s)
try:
    s.close()
except RuntimeError as e:
    print(e)
def lam():
    return [lambda: i for i in range(3)]
print([f() for f in lam()])
xs = [1, 2, 3]
it = (x * y for x in xs for y in xs if x != y)
xs.append(4)
print(list(it))
class K:
    v = 10
    g = list(i for i in range(3))
print(K.g)
print(list(zip((i for i in range(3)), "abc")))
