# torch.sigmoid of float32 as PyTorch's vectorised CPU kernel: 1 / (1 + e^-x)
# with SLEEF's exp.
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
import torch
torch.manual_seed(0)
x = torch.randn(512) * 3
s = torch.sigmoid(x)
print(s.sum().item(), s[:6].tolist(), torch.nn.Sigmoid()(x)[100:104].tolist())
print(torch.sigmoid(torch.tensor([0.0, -0.0, 88.0, -88.0, -100.0, -104.5, 120.0, float('inf'), -float('inf'), float('nan')])).tolist())
