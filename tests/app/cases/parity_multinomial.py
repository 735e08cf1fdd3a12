# torch.multinomial as PyTorch 1.13's CPU kernel: with replacement (one
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# sample too) a binary search of the float cumulative sums for each double
# uniform; without replacement the exponential (Gumbel) trick.
import torch
g = torch.Generator().manual_seed(2147483647)
p = torch.rand(2, 27, generator=g)
p = p / p.sum(1, keepdim=True)
print([torch.multinomial(p[0], num_samples=1, replacement=True, generator=g).item() for _ in range(10)])
print(torch.multinomial(p, num_samples=1, replacement=True, generator=g).tolist())
print(torch.multinomial(p, num_samples=6, replacement=True, generator=g).tolist())
print(torch.multinomial(p, num_samples=1, generator=g).tolist())
print(torch.multinomial(p, num_samples=6, replacement=False, generator=g).tolist())
