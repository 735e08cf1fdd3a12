# The object protocol on script classes: numeric dunders (reflected too),
# comparisons, hash, truthiness, len/items/slices/contains, iteration through
# __iter__/__next__, format, call, with, __new__, and the introspection
# builtins (dir, vars, getattr...), each as Python prints it.
class V:
    """A vector."""
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __repr__(self): return f"V({self.x}, {self.y})"
    def __str__(self): return f"<{self.x},{self.y}>"
    def __eq__(self, o): return isinstance(o, V) and (self.x, self.y) == (o.x, o.y)
    def __hash__(self): return hash((self.x, self.y))
    def __lt__(self, o): return (self.x, self.y) < (o.x, o.y)
    def __le__(self, o): return (self.x, self.y) <= (o.x, o.y)
    def __add__(self, o):
        if isinstance(o, (int, float)): return V(self.x + o, self.y + o)
        return V(self.x + o.x, self.y + o.y)
    def __radd__(self, o): return self.__add__(o)
    def __sub__(self, o): return V(self.x - o.x, self.y - o.y)
    def __mul__(self, k): return V(self.x * k, self.y * k)
    def __rmul__(self, k): return V(self.x * k, self.y * k)
    def __matmul__(self, o): return self.x * o.x + self.y * o.y
    def __truediv__(self, k): return V(self.x / k, self.y / k)
    def __floordiv__(self, k): return V(self.x // k, self.y // k)
    def __mod__(self, k): return V(self.x % k, self.y % k)
    def __pow__(self, k): return V(self.x ** k, self.y ** k)
    def __neg__(self): return V(-self.x, -self.y)
    def __pos__(self): return self
    def __abs__(self): return (self.x ** 2 + self.y ** 2) ** 0.5
    def __bool__(self): return bool(self.x or self.y)
    def __len__(self): return 2
    def __getitem__(self, i):
        if isinstance(i, slice): return [self.x, self.y][i]
        return (self.x, self.y)[i]
    def __contains__(self, v): return v in (self.x, self.y)
    def __iter__(self): return iter((self.x, self.y))
    def __format__(self, spec): return f"V[{format(self.x, spec)}, {format(self.y, spec)}]"
    def __call__(self, k): return self * k
    def __iadd__(self, o):
        self.x += o.x; self.y += o.y
        return self
a, b = V(1, 2), V(3, 4)
print(a + b, 1 + a, a + 1, a - b, a * 2, 2 * a, a @ b, b / 2, b // 2, b % 2, a ** 2, -a, +a, abs(b))
print(a == V(1, 2), a != b, a < b, a <= b, a > b, a >= b, hash(a) == hash(V(1, 2)), {a: 1}[V(1, 2)] if False else "skip")
print(bool(a), bool(V(0, 0)), len(a), a[0], a[-1], a[0:1], 2 in a, 5 in a, list(a), sorted([b, a]), max(a, b))
print(f"{a:.1f}", format(a, "d"), str(a), repr(a), [a], a(3))
c = a
c += b
print(c, a is c)
print(V.__name__, V.__qualname__, V.__module__, type(a).__name__, a.__class__.__name__, V.__doc__)
print(sorted(vars(a).items()), a.__dict__)
print(callable(a), callable(V), callable(1), callable(print))
print([n for n in dir(a) if not n.startswith('__')])
print(getattr(a, 'x'), getattr(a, 'q', 'dflt'), hasattr(a, 'y'))
setattr(a, 'z', 9); print(a.z); delattr(a, 'z'); print(hasattr(a, 'z'))
class Counter:
    def __init__(self, n): self.i, self.n = 0, n
    def __iter__(self): return self
    def __next__(self):
        if self.i >= self.n: raise StopIteration
        self.i += 1
        return self.i
print(list(Counter(3)), sum(Counter(4)), [x * 2 for x in Counter(2)])
it = iter(Counter(2)); print(next(it), next(it), next(it, 'done'))
class Ctx:
    def __enter__(self): print("enter"); return "val"
    def __exit__(self, et, ev, tb):
        print("exit", et.__name__ if et else None, ev)
        return True
with Ctx() as v:
    print("body", v)
    raise ValueError("boom")
print("after")
class Grid:
    def __init__(self): self.d = {}
    def __setitem__(self, k, v): self.d[k] = v
    def __getitem__(self, k): return self.d[k]
    def __delitem__(self, k): del self.d[k]
g = Grid(); g[1, 2] = 5; print(g[1, 2], g.d); del g[1, 2]; print(g.d)
class N:
    def __init__(self, v): self.v = v
    def __new__(cls, v):
        print("new", cls.__name__)
        return super().__new__(cls)
print(N(3).v)
class S:
    def __init_subclass__(cls): pass
print(dir(S) == sorted(dir(S)), 'x' in dir(V(1,2)))
print(isinstance(a, V), type(a) is V, type(V), V.__base__ if hasattr(V, '__base__') else None)
class Rev:
    def __eq__(self, o): return "eq called"
print(Rev() == 1, 1 == Rev())
