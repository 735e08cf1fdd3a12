# torch.cos of float32 as PyTorch's AVX2 CPU kernel (SLEEF's cosf_u1).
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
import torch, math
torch.manual_seed(0)
c = torch.cos(torch.linspace(-math.pi, math.pi, 2000))
print(c.sum().item(), c[100:106].tolist())
r = torch.cos(torch.randn(512) * 30)
print(r.sum().item(), r[:5].tolist())
print(torch.cos(torch.tensor([0.0, -0.0, 1e-30, 3.0, -100.0, float('inf'), float('nan')])).tolist())
