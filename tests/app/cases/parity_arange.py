# torch.arange of float32/float64 as PyTorch's AVX2 CPU kernel: double
# arithmetic, 8- or 4-lane blocks from a fused base, the tail fused.
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
import torch
print(torch.arange(0, 10, 0.1).tolist()[::7])
for a, b, st in [(-3.3, 7.7, 0.037), (1.5, 2000.5, 1.0), (-50.25, 12.0, 0.77)]:
    f = torch.arange(a, b, st)
    d = torch.arange(a, b, st, dtype=torch.float64)
    print(len(f), f.sum().item(), f[::37].tolist(), d.sum().item(), d[::29].tolist())
