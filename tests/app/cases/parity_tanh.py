# torch.tanh of float32 as PyTorch's AVX2 CPU kernel (SLEEF's tanhf_u10).
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
import torch
torch.manual_seed(0)
t = torch.tanh(torch.randn(512) * 3)
print(t.sum().item(), t[:6].tolist(), torch.nn.Tanh()(torch.randn(4) * 0.01).tolist())
print(torch.tanh(torch.tensor([0.0, -0.0, 1e-30, 1e-8, 8.6, 8.7, -9.0, 20.0, float('inf'), -float('inf'), float('nan')])).tolist())
