# pow of float32 as PyTorch's AVX2 kernels: SLEEF's powf in vectorised
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# blocks of 16, libm's powf for the tail and for broadcast inner dims; 2, 3,
# 0.5, -0.5, -1, -2 exponents are products and square roots.
import torch, math
x = torch.linspace(-math.pi, math.pi, 2005)
for k in (4, 5, 1.5, -3, 2, 3, 0.5, -1):
    y = x ** k
    print(k, y[500:1500].sum().item(), y[:3].tolist(), y[-7:].tolist())
p = torch.tensor([1, 2, 3, 4])
print((x.unsqueeze(-1) ** p).sum().item(), (x.unsqueeze(-1).pow(p))[100:103].tolist())
r = torch.rand(100, generator=torch.Generator().manual_seed(1)) * 10
print((r ** torch.linspace(-2, 3, 100)).tolist()[:20])
print(torch.pow(torch.tensor([0.0, -0.0, -2.0, 2.0, float('inf'), float('nan'), 1.0]), 4.5).tolist())
