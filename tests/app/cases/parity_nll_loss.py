# nll_loss / cross_entropy reductions as PyTorch's nll_loss_out_frame: float
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# partial sums cascaded every 16 targets, mean over the count or weights.
import torch
torch.manual_seed(0)
for N in (1, 17, 64, 300):
    lp = torch.log_softmax(torch.randn(N, 10) * 3, 1)
    y = torch.randint(0, 10, (N,))
    w = torch.rand(10)
    print(N, torch.nn.functional.nll_loss(lp, y).item(), torch.nn.functional.nll_loss(lp, y, reduction='sum').item(),
          torch.nn.functional.nll_loss(lp, y, weight=w).item(), torch.nn.functional.nll_loss(lp, y, ignore_index=3).item(),
          torch.nn.functional.cross_entropy(lp * 2, y).item())
lp = -torch.rand(4, 5, 7, 9) * 3; y = torch.randint(0, 5, (4, 7, 9))
print(torch.nn.functional.nll_loss(lp, y).item(), torch.nn.functional.nll_loss(lp.double(), y).item())
