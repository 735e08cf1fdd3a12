# Integer tensors: arange, arithmetic, floor division and Python-style
# remainder with negatives, sums, products, large values, printing widths.
import torch
n = torch.arange(-4, 5)
print(n)
print(n // 3)
print(n % 3)
print(n * n)
print(n.sum(), n.prod(), n.abs().max())
print(torch.arange(0, 20, 3))
big = torch.tensor([2 ** 40, -7, 123456789012])
print(big)
print(big // 1000)
m = torch.tensor([[1, 2], [3, 4]])
print(m @ m)
print(m.t())
print(m.float() / 3)
print(m.sum(dim=0), m.sum(dim=1).dtype)
print(torch.zeros(2, 3, dtype=torch.int64))
