def g():
    try:
        raise ValueError("a")
    except ValueError:
        yield 1
        raise
it = g()
next(it)
try:
    raise KeyError("b")
except KeyError:
    try:
        next(it)
    except ValueError as e:
        print("re-raised", repr(e))
    try:
        raise
    except KeyError as e:
        print("consumer's own", repr(e))
f = lambda: (yield 5)
print(list(f()))
def r():
    try:
        yield 1
        return 7
    finally:
        print("fin")
x = r()
print(next(x))
try:
    next(x)
except StopIteration as e:
    print("value", e.value, e.args)
def gg():
    x = yield 1
    print("got", x)
    y = yield x + 1
    print("got", y)
z = gg()
print(z.send(None), z.send(10))
try:
    z.send(20)
except StopIteration:
    print("done")
print(next(z, "dflt"), z.gi_running)
class CM:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, *a):
        print("exit", a[0].__name__ if a[0] else None)
def w():
    with CM():
        yield 1
        yield 2
q = w()
next(q)
q.close()
q2 = w()
next(q2)
try:
    q2.throw(RuntimeError("x"))
except RuntimeError as e:
    print("thrown through", e)
def genexp_self():
    return (x for x in range(3))
h = genexp_self()
print(h.__name__, h.__qualname__ if hasattr(h, "__qualname__") else "")
print(repr(h)[:42])
