# Dict keys and set items by a class's __hash__ and __eq__ (Python's rules:
# __eq__ without __hash__ makes a class unhashable; a __hash__ runs once per
# operation); tensors stay keys by identity, as in PyTorch.
import torch

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)
    def __hash__(self):
        return hash((self.x, self.y))
    def __repr__(self):
        return f"Point({self.x}, {self.y})"

d = {Point(1, 2): "a"}
d[Point(1, 2)] = "b"
print(len(d), d[Point(1, 2)], Point(1, 2) in d, Point(2, 1) in d)
s = {Point(0, 0), Point(0, 0), Point(1, 0)}
print(len(s), sorted((p.x, p.y) for p in s))
del d[Point(1, 2)]
print(d)

class Key:
    def __init__(self, k):
        self.k = k
    def __eq__(self, other):
        return self.k == other
    def __hash__(self):
        return hash(self.k)
d = {1: "one", "two": 2}
print(d[Key(1)], d[Key("two")], Key(3) in d)

class NoHash:
    def __eq__(self, other):
        return True
try:
    {NoHash(): 1}
except TypeError as e:
    print("TypeError:", e)
print(NoHash.__hash__)

class Plain:
    pass
a, b = Plain(), Plain()
print(len({a, b, a}))

class Counting:
    calls = 0
    def __hash__(self):
        Counting.calls += 1
        return 7
c = Counting()
d = {}
d[c] = 1
d[c] = 2
x = d[c]
del d[c]
print("hash calls", Counting.calls, len(d))

class Bad:
    def __hash__(self):
        raise ValueError("no hash")
try:
    {Bad(): 1}
except ValueError as e:
    print("ValueError:", e)
try:
    print(hash((1, Bad())))
except ValueError as e:
    print("ValueError:", e)

class StrHash:
    def __hash__(self):
        return "x"
try:
    {StrHash()}
except TypeError as e:
    print("TypeError:", e)

t = torch.ones(2)
u = torch.ones(2)
d = {t: "t", u: "u"}
print(len(d), d[t], d[u], t in d)
ts = {t, t, u}
print(len(ts))

def dedupe(items):
    seen = set()
    out = []
    for it in items:
        if it not in seen:
            seen.add(it)
            out.append(it)
    return out
print(dedupe([Point(1, 1), Point(2, 2), Point(1, 1)]))
print(Point(1, 2) in [Point(1, 2)], [Point(3, 4)].index(Point(3, 4)))
