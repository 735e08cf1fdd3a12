# Batch norm, group norm, cdist and clamp_min/max under PyTorch's saved
# names: batch norm's statistics and running buffers, group norm's
# statistics, cdist's result.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4, 3, 5, requires_grad=True)
bn = nn.BatchNorm1d(3)
gn = nn.GroupNorm(1, 3)
a = torch.randn(3, 2, requires_grad=True)
b = torch.randn(4, 2, requires_grad=True)
w = torch.randn(4, 3, 5)
h = bn(x).clamp_min(-1.0)
k = gn(h).clamp_max(1.5)
d = torch.cdist(a, b)
loss = (k * w).sum() + d.sum()
loss.backward()
print(x.grad[0], a.grad)
