# Operator methods called by name, as real code sometimes does:
# functools.reduce(torch.Tensor.__add__ ...) style, map(x.__getitem__, ...).
import torch
import torch.nn as nn
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.tensor([4.0, 5.0, 6.0])
calls = [
    ('__add__', lambda: x.__add__(y)), ('__radd__', lambda: x.__radd__(2)),
    ('__sub__', lambda: x.__sub__(y)), ('__rsub__', lambda: x.__rsub__(1)),
    ('__mul__', lambda: x.__mul__(2)), ('__rmul__', lambda: x.__rmul__(3)),
    ('__truediv__', lambda: x.__truediv__(y)), ('__rtruediv__', lambda: x.__rtruediv__(1)),
    ('__pow__', lambda: x.__pow__(2)), ('__rpow__', lambda: x.__rpow__(2)),
    ('__neg__', lambda: x.__neg__()), ('__abs__', lambda: x.__abs__()), ('__pos__', lambda: x.__pos__()),
    ('__getitem__', lambda: x.__getitem__(0)), ('__getitem__ slice', lambda: x.__getitem__(slice(1, None))),
    ('__len__', lambda: x.__len__()), ('__matmul__', lambda: x.__matmul__(y)),
    ('__rmatmul__', lambda: x.__rmatmul__(y)), ('__mod__', lambda: x.__mod__(2)),
    ('__eq__', lambda: x.__eq__(y)), ('__ne__', lambda: x.__ne__(y)), ('__lt__', lambda: x.__lt__(y)),
    ('__ge__', lambda: x.__ge__(2)), ('__contains__', lambda: x.__contains__(2.0)),
    ('__float__', lambda: x[0].__float__()), ('__int__', lambda: x[1].__int__()),
    ('__bool__', lambda: x[0].__bool__()), ('__index__', lambda: torch.tensor(3).__index__()),
    ('__repr__', lambda: x.__repr__()), ('__str__', lambda: x.__str__()),
    ('__format__', lambda: x[0].__format__('.2f')), ('__hash__', lambda: x.__hash__() == hash(x)),
    ('__reversed__', lambda: x.__reversed__()), ('__and__', lambda: torch.tensor([5, 6]).__and__(torch.tensor([3, 3]))),
    ('__or__', lambda: torch.tensor([5, 6]).__or__(1)), ('__xor__', lambda: torch.tensor([5, 6]).__xor__(1)),
    ('__invert__', lambda: torch.tensor([True, False]).__invert__()),
    ('__len__ error', lambda: torch.tensor(2.).__len__()), ('__index__ error', lambda: x.__index__()),
    ('int __add__ no arg', lambda: (1).__add__()), ('__neg__ arg', lambda: (1).__neg__(2)),
]
for name, call in calls:
    try:
        print(name, call())
    except Exception as e:
        print(name, type(e).__name__, e)
z = x.detach().clone()
print(z.__iadd__(1) is z, z)
z.__imul__(2); z.__setitem__(0, 100.); z.__isub__(1); z.__itruediv__(2)
print(z)
f = x.__mul__
print(f(3))
print(list(map(x.__getitem__, [0, 2])))
print(sorted([2, 0, 1], key=[10, 30, 20].__getitem__))
loss = x.__mul__(x).__rsub__(10).sum()
loss.backward()
print(loss, x.grad)
# Python's own values
print((2).__add__(3), (2).__radd__(3), (2.5).__mul__(2), 'a'.__add__('b'), [1].__len__(),
      (3).__neg__(), {1: 2}.__getitem__(1), [1, 2].__contains__(2), (1, 2).__len__())
print((1).__truediv__(0.5), (7).__floordiv__(2), (7).__mod__(3), (2).__pow__(10), (1).__eq__(1),
      (1).__lt__(2), 'abc'.__getitem__(1), (5).__add__(1.5), (1.5).__add__(5), 'a'.__eq__(1))
print(int.__add__(2, 3), float.__mul__(1.5, 2), str.__len__('abc'), list.__getitem__([4, 5], 1))
lst = [1]
print(lst.__iadd__([2]) is lst, lst, lst.__mul__(2), [0].__rmul__(3), 'ab'.__mod__ if False else '%d'.__mod__(5))
d = {'a': 1}
d.__setitem__('b', 2); d.__delitem__('a')
print(d, d.__contains__('b'), True.__and__(False), (5).__invert__(), (6).__and__(3), (1).__lshift__(4))
try:
    'a'.__add__(1)
except TypeError as e:
    print(e)
# instances of the script's classes and modules
class Point:
    def __init__(self, x):
        self.x = x
p, q = Point(1), Point(2)
print(p.__eq__(p), p.__eq__(q), p.__ne__(q), p.__ne__(p), p.__lt__(q), p.__str__() == p.__repr__(),
      p.__hash__() == hash(p), p.__format__(''))
class Vec:
    def __init__(self, v):
        self.v = v
    def __add__(self, other):
        return Vec(self.v + other.v)
    def __repr__(self):
        return 'Vec({})'.format(self.v)
print(Vec(1).__add__(Vec(2)), Vec(3).__repr__(), Vec(4).__str__(), Vec(5) == Vec(5))
lin = nn.Linear(2, 1)
print(lin.__class__.__name__, lin.__eq__(lin), lin.weight.__mul__(0).sum())
