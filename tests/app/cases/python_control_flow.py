# The Python around the tensors: functions with defaults, lambdas, loops with
# break/continue, while, list comprehensions, dicts, tuple unpacking,
# enumerate/zip, sorted/sum/min/max.
import torch


def affine(x, w=2.0, b=0.5):
    return w * x + b


square = lambda v: v * v
print(affine(1.0), affine(1.0, b=-1), square(3))
xs = [i * 0.5 for i in range(6) if i % 2 == 0]
print(xs)
total = 0
for i in range(10):
    if i == 7:
        break
    if i % 3 == 0:
        continue
    total += i
print(total)
n = 0
while n * n < 50:
    n += 1
print(n)
params = {"w": torch.tensor(1.0), "b": torch.tensor(-0.5)}
for key, value in params.items():
    print(key, value)
print(list(params.keys()), len(params), "w" in params)
a, (b, c) = 1, (2, 3)
a, b = b, a
print(a, b, c)
for i, (x, y) in enumerate(zip([1, 2, 3], "abc")):
    print(i, x, y)
print(sorted([3, 1, 2], reverse=True), sum([1.5, 2.5]), min(4, 2, 8), max([1, 9, 3]))
print([affine(t) for t in torch.tensor([1.0, 2.0])])
print(abs(-3), round(2.567, 2), divmod(17, 5), 2 ** 10, 7 // 2, -7 % 3)
print(isinstance(1.0, float), str(12), int("42") + 1, float("1.5"))
