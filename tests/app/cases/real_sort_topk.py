# sort, argsort and topk as forum answers and tutorials use them
import torch
x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, float('nan'), -1.0, 4.0]], requires_grad=True)
v, i = torch.sort(x)
print(v, i)
print(x.sort(dim=0, descending=True))
print(torch.argsort(x, dim=1, descending=True), x.argsort())
(v * torch.arange(4.0)).sum().backward()
print(x.grad)
values, indices = torch.topk(torch.tensor([1., 5., 3., 9., 2.]), 3)
print(values, indices)
t = torch.tensor([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1]], requires_grad=True)
top = t.topk(2, dim=1)
print(top)
top.values.sum().backward()
print(t.grad, top.indices.dtype)
print(torch.topk(t, 1, largest=False).indices, torch.msort(torch.tensor([[2., 1.], [0., 3.]])))
s, _ = torch.sort(torch.tensor([3, 1, 2]), descending=True)
print(s)
try:
    torch.topk(torch.ones(3), 4)
except RuntimeError as e:
    print(e)
