class Bag:
    def __init__(self, *items):
        self.items = list(items)
    def __iter__(self):
        yield from self.items
    def __len__(self):
        return len(self.items)
class Wrap:
    def __init__(self, xs):
        self.xs = xs
    def __iter__(self):
        return iter(self.xs)
b = Bag(1, 2, 3)
print(list(b), [x * 2 for x in b], sum(b), max(b), sorted(b, reverse=True))
print(list(zip(b, Wrap("abc"))), dict(zip(Wrap("ab"), b)))
it = iter(b)
print(next(it), next(it), list(it))
print(2 in b, 5 in Wrap([5]))
a, *rest = b
print(a, rest)
for i, x in enumerate(Wrap([10, 20])):
    print(i, x)
print(list(map(str, b)), tuple(Wrap((1, 2))))
