z = zip([1, 2], [3, 4])
print(repr(z)[:len("<zip object")])
print(type(map(str, [1])).__name__, type(filter(None, [1])).__name__, type(enumerate([1])).__name__)
for r in [reversed([1]), reversed((1,)), reversed(range(3)), reversed("ab"), iter([1]), iter((1,)), iter(range(2)), iter("a"), iter("é"), iter({1: 2}), reversed({1: 2}), iter(int, 1)]:
    s = repr(r)
    print(s[:s.index(" at ")])
print(list(reversed("héllo")), list(reversed(range(1, 10, 3))), list(reversed({1: 2, 3: 4})))
def count():
    i = 0
    while True:
        yield i
        i += 1
print(list(zip(count(), "abc")))
print(next(x for x in count() if x * x > 50))
print(any(x > 10 for x in count()))
print(list(map(lambda a, b: a + b, [1, 2, 3], count())))
e = enumerate(count(), 5)
print(next(e), next(e))
l = [1, 2]
it = iter(l)
l.append(3)
print(list(it))
m = map(print, [1, 2])
print("lazy")
list(m)
try:
    list(zip([1, 2], [1], strict=True))
except ValueError as ex:
    print(ex)
try:
    list(zip([1], [1, 2], strict=True))
except ValueError as ex:
    print(ex)
try:
    list(zip([1], [1], [1, 2], strict=True))
except ValueError as ex:
    print(ex)
try:
    zip(1, [2])
except TypeError as ex:
    print(ex)
print(dict(zip("ab", count())))
print(sorted(x % 3 for x in range(7)))
print(max(x for x in [3, 9, 2]), min((x for x in [3, 9, 2]), default=0))
print(tuple(x for x in "abc"), set(x % 2 for x in range(5)))
print(" ".join(str(x) for x in range(4)))
s = 0
for i, (a, b) in enumerate(zip([1, 2], [3, 4])):
    s += i * a * b
print(s)
