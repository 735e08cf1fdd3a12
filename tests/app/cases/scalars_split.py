# unbind, split (sizes or a size), chunk and unsafe_split, each an op of
# several outputs, and embedding with padding_idx (its row gets no
# gradient) and scale_grad_by_freq: each opens as a scalar graph.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.5, -1.0]], requires_grad=True)
a, b = x.unbind(0)
c, d = torch.split(x, [1, 2], dim=1)
e, f = x.chunk(2, dim=1)
g = x.split(2, dim=1)
u = torch.unsafe_split(x, 1, 0)
E = torch.tensor([[0.5, -1.0], [2.0, 1.0], [-0.5, 0.25]], requires_grad=True)
e1 = F.embedding(torch.tensor([2, 0, 2, 1]), E, padding_idx=0)
e2 = F.embedding(torch.tensor([2, 0, 2, 1]), E, scale_grad_by_freq=True)
e3 = F.embedding(torch.tensor([[1, 2]]), E, padding_idx=-1)
loss = (a * b).sum() + (c * 3).sum() + (d * d).sum() + (e * f[:, :1]).sum() + g[1].sum()
loss = loss + u[0].sum() + (e1 * e1).sum() + (e2 * torch.arange(8.0).view(4, 2)).sum()
loss = loss + (e3 * 3).sum()
loss.backward()
print(a, b)
print(c, d)
print(e, f)
print(loss)
print(x.grad)
print(E.grad)
