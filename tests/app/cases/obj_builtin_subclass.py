# Subclasses of builtin types: the exception family, list, tuple and dict,
# and collections' OrderedDict, namedtuple and defaultdict built on them.
from collections import OrderedDict, defaultdict, namedtuple
import collections


class AppError(Exception):
    pass


class ConfigError(AppError, ):
    def __init__(self, key, reason):
        super().__init__(f"bad key {key!r}: {reason}")
        self.key = key


class Quiet(ValueError):
    def __str__(self):
        return "quiet: " + str(self.args[0])


for make in (lambda: AppError(), lambda: AppError("one"), lambda: AppError("a", 2),
             lambda: ConfigError("lr", "negative"), lambda: Quiet(7)):
    try:
        raise make()
    except AppError as e:
        print("AppError", type(e).__name__, e.args, str(e), repr(e), isinstance(e, Exception))
    except ValueError as e:
        print("ValueError", type(e).__name__, e.args, str(e), repr(e))
try:
    raise ConfigError
except TypeError as e:
    print("TypeError", e)
try:
    try:
        raise ConfigError("x", "y")
    except (KeyError, AppError) as e:
        print("caught", e.key, issubclass(type(e), Exception))
        raise
except Exception as outer:
    print("re-raised", type(outer).__name__)


class Stack(list):
    def push(self, item):
        self.append(item)

    def append(self, item):
        super().append(item * 10)

    @property
    def top(self):
        return self[-1]


s = Stack([1, 2])
s.push(3)
s.extend([4])
s.label = "mine"
print(s, len(s), s.top, s[1:], type(s[1:]).__name__, s.label, isinstance(s, list))
print(type(s).__name__, sum(s), [x for x in s], s == [1, 2, 30, 4], 30 in s)
print(Stack(), Stack("ab"), list(Stack([5])))
try:
    [].label = 1
except AttributeError as e:
    print("AttributeError", e)


class Registry(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.hits = 0

    def __missing__(self, key):
        self.hits += 1
        return key.upper()


r = Registry({"a": 1}, b=2)
print(r, r["a"], r["zz"], r.hits, len(r), sorted(r.keys()), isinstance(r, dict), type(r).__name__)


class Pair(tuple):
    def swap(self):
        return Pair((self[1], self[0]))


p = Pair([1, 2])
print(p, p.swap(), type(p.swap()).__name__, p + (3,), hash(p) == hash((1, 2)), tuple(p))

od = OrderedDict()
od["b"] = 1
od["a"] = 2
od.update(c=3)
print(od, list(od), OrderedDict(), OrderedDict([("x", 1)]))
od.move_to_end("b")
print(od, od.popitem(), od.popitem(last=False), od)
print(isinstance(od, dict), type(od).__name__, collections.OrderedDict is OrderedDict)


class Layers(OrderedDict):
    pass


print(Layers([("fc", 1)]))

counts = defaultdict(int)
for word in "the cat the hat the end".split():
    counts[word] += 1
print(counts, dict(counts), counts["none"])
groups = defaultdict(list)
groups["x"].append(1)
print(groups)

Point = namedtuple("Point", ["x", "y"])
pt = Point(1, y=2)
print(pt, pt.x, pt.y, pt[0], tuple(pt), pt._replace(x=5), pt._asdict(), Point._fields)
print(Point._make([3, 4]), isinstance(pt, tuple), type(pt).__name__, len(pt), pt == (1, 2))
x, y = pt
print(x + y, Point)
Row = namedtuple("Row", "a b c", defaults=[0])
print(Row(1, 2), Row(1, 2, 3))
for bad in (lambda: Point(1), lambda: Point(1, 2, 3), lambda: Point(1, z=2)):
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
