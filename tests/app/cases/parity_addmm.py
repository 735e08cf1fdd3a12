# torch.addmm / nn.Linear as PyTorch's CPU kernel: the bias copied into the
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# result, then one sgemm with beta = 1 (not a product plus the bias after).
import torch
torch.manual_seed(0)
x = torch.randn(64, 784); W = torch.randn(64, 784) * 0.03; b = torch.randn(64) * 0.03
out = torch.addmm(b, x, W.t())
print(out.sum().item(), out[0, :6].tolist(), out[37, 50:].tolist())
lin = torch.nn.Linear(20, 7)
h = lin(torch.randn(5, 20))
print(h.tolist())
print(torch.addmm(torch.randn(3, 1, dtype=torch.float64), torch.randn(3, 300, dtype=torch.float64), torch.randn(300, 4, dtype=torch.float64)).tolist())
