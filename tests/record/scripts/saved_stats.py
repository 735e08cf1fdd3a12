# Batch norm in eval keeps empty statistics and its running buffers; in
# training its statistics per channel; group norm's per sample and group;
# layer norm keeps its bias; sort and topk the indices they return.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(4, 3, 5, requires_grad=True)
bn = nn.BatchNorm1d(3)
gn = nn.GroupNorm(3, 3)
ln = nn.LayerNorm(5)
h = bn(x)
bn.eval()
e = bn(x)
k = gn(h) + ln(e)
v, i = k.sort(2)
t, j = v.topk(2, dim=1)
loss = (t * torch.arange(2.0).reshape(1, 2, 1)).sum()
loss.backward()
print(x.grad[0])
