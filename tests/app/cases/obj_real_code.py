# Patterns real code uses: class attributes through type(self), classmethod
# factories, __eq__ in list.index, attributes on tensors read by getattr and
# vars, setattr from **kwargs, property() with a setter lambda, object(),
# __mro__ / __bases__, and a class's own __dir__.
import torch

class A:
    count = 0
    def __init__(self):
        A.count += 1
        type(self).count += 0
    @classmethod
    def make(cls): return cls()
    @staticmethod
    def s(x): return x * 2
a = A.make(); b = A()
print(A.count, a.s(3), A.s(4), type(a).make().count)
class B(A):
    def __init__(self, v):
        super().__init__()
        self.v = v
    def __eq__(self, o): return self.v == o.v
b1, b2 = B(1), B(1)
print(b1 == b2, b1 != b2, b1 in [b2], [b1].index(b2))
print(getattr(torch, 'relu') is torch.relu, getattr(torch, 'Tensor').__name__)
x = torch.ones(2)
x.name_tag = 'x'
print(x.name_tag, getattr(x, 'name_tag'), vars(x))
print(isinstance(x, (int, torch.Tensor)), isinstance(3, (int, float)))
class Meta:
    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
m = Meta(lr=0.1, epochs=3)
print(m.lr, m.epochs, vars(m))
class P:
    def __init__(self): self._x = 0
    x = property(lambda self: self._x, lambda self, v: setattr(self, '_x', v))
pp = P(); pp.x = 5; print(pp.x)
print(object().__class__, type(object()), type(None).__name__, int.__name__)
class C(object): pass
print(C.__mro__ if hasattr(C, '__mro__') else 'nomro', C.__bases__)


class Shown:
    def __init__(self):
        self.a = 1

    def __dir__(self):
        return ["zeta", "alpha"]


print(dir(Shown()), "a" in dir(Shown()))
