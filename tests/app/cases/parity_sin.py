# torch.sin of float32 as PyTorch's AVX2 CPU kernel (SLEEF's 1-ulp sinf)
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# computes it: these arguments round differently under libm's sinf.
import torch, math
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
print([i for i in (132, 139, 145, 153, 158, 170)], [y[i].item() for i in (132, 139, 145, 153, 158, 170)])
print(y.sum().item(), torch.sin(torch.linspace(-124, 124, 4096)).sum().item())
print(torch.sin(torch.tensor([0.0, -0.0, 1e-30, 3.0, -100.0, float('inf'), float('nan')])).tolist())
