s = {1, 2, 3}
print(s, len(s), 2 in s, 5 in s, 5 not in s)
e = set()
print(e, len(e), type(e).__name__, isinstance(s, set))
e.add(3); e.add(1); e.add(3)
print(e, sorted(e))
print(set([3, 1, 2, 1]), set("aab") == {"a", "b"})
a = {1, 2, 3}
b = {2, 3, 4}
print(a | b, a & b, a - b, a ^ b)
print(a.union([9]), a.intersection(b), a.difference(b), a.issubset({1, 2, 3, 4}), b.issuperset({2}))
a.discard(1); a.discard(42); a.remove(2)
print(a)
try:
    a.remove(99)
except KeyError as err:
    print("KeyError", err)
seen = set()
for w in ["x", "y", "x", "z", "y"]:
    if w not in seen:
        seen.add(w)
print(len(seen), sorted(seen))
sq = {x * x for x in range(-3, 4)}
print(sorted(sq), len(sq))
c = a.copy(); c.update([7, 8], {9}); print(sorted(c))
c.clear(); print(c)
for v in {5}:
    print(v)
print({(1, 2), (1, 2)})
try:
    {[1]}
except TypeError as err:
    print(err)
print(sum({1, 2, 3}), max({4, 9, 2}), list({1}))
print({5, 3, 9, 1}, {-1, -2, 0}, {100, 7, 8, 16}, set(range(20, 0, -3)), {x * x for x in range(-3, 4)})
print({True, 2, 0}, set([64, 32, 8, 0, 1000]))
