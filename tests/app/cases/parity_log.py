# torch.log of float32 as PyTorch's AVX2 CPU kernel (SLEEF's logf_u1).
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
import torch
torch.manual_seed(0)
for sc in (0.3, 3.0, 30.0):
    l = torch.log(torch.rand(512) * sc)
    print(l.sum().item(), l[:4].tolist())
print(torch.log(torch.tensor([0.0, -0.0, 1.0, 2.0, 0.1, 1e-40, 1e-45, 3e38, float('inf'), -1.0, float('nan')])).tolist())
