# hex/oct/bin, iter/next, callable, str.istitle and methods read from types.
import torch

print(hex(255), oct(8), bin(5), hex(-42), bin(0), oct(-9), hex(True))
print(chr(955), ord("λ"), callable(len), callable(3), callable(str.upper), callable(torch.relu))

it = iter([10, 20, 30])
print(type(it).__name__, next(it))
print(list(it), next(it, "done"))
try:
    next(it)
except StopIteration as e:
    print("StopIteration", repr(e))

rows = iter(torch.arange(6.0).reshape(3, 2))
first = next(rows)
print(first, [r.sum().item() for r in rows])

pairs = zip("abc", range(3))
print(next(pairs), list(pairs), list(pairs))
gen = (x * x for x in range(4))
print(next(gen), sum(gen))
d = {"w": 1, "b": 2}
print(next(iter(d)), next(iter(d.values())), next(iter(d.items())))
for name in ["Hello World", "hello World", "HELLO", "Title Case Words", "", "A1 B2", "Élan Vital"]:
    print(repr(name), name.istitle())
print(sorted(["banana", "Apple", "cherry"], key=str.lower))
print(list(map(str.strip, ["  a ", "b  "])))
l = []
list.append(l, 1)
list.extend(l, [2, 3])
print(l, str.upper("x"), dict.get({"k": 5}, "k"), int.bit_length(255))
for bad in [lambda: hex(1.5), lambda: next([1]), lambda: iter(3), lambda: str.lower(3),
            lambda: next(iter([]), 1, 2)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
