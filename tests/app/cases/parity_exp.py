# torch.exp of float32 as PyTorch's AVX2 CPU kernel (SLEEF's expf_u10).
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
import torch
torch.manual_seed(0)
for sc in (0.3, 3.0, 30.0):
    e = torch.exp(torch.randn(512) * sc)
    print(e.sum().item(), e[:4].tolist())
print(torch.exp(torch.tensor([0.0, -0.0, 0.4867, 88.7, 88.8, -87.0, -100.0, -104.5, 100.5, float('inf'), -float('inf'), float('nan')])).tolist())
