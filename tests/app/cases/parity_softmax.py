# softmax / log_softmax of float32 along the last dim as PyTorch's AVX2
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# kernels: SLEEF exp and log, float sums in the vector lanes' order.
import torch
torch.manual_seed(0)
for D in (3, 8, 10, 27, 100):
    p = torch.randn(16, D) * 2
    ls = torch.log_softmax(p, 1)
    s = torch.softmax(p, -1)
    print(D, ls.sum().item(), ls[3].tolist()[:5], s.sum().item(), s[5].tolist()[:5])
# Backward: sum(g) and sum(g * y) in the same lane order, FMAs where GCC fuses.
for D in (3, 10, 27):
    p = (torch.randn(16, D) * 2).requires_grad_()
    g = torch.randn(16, D)
    torch.log_softmax(p, 1).backward(g)
    a = p.grad.clone()
    p.grad = None
    torch.softmax(p, 1).backward(g)
    print(D, a.sum().item(), a[2].tolist()[:4], p.grad.sum().item(), p.grad[7].tolist()[:4])
