# Views share storage with their base: view, reshape, t, transpose, permute,
# unsqueeze, squeeze, expand, flatten; changing a view changes the base.
import torch
base = torch.arange(6.0)
v = base.view(2, 3)
v[0, 1] = 100.0
print(base)
t = v.t()
print(t, t.shape, t.is_contiguous())
print(v.transpose(0, 1).contiguous().view(6))
p = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
print(p.shape)
print(p[1])
u = torch.tensor([1.0, 2.0]).unsqueeze(0)
print(u, u.shape)
print(u.unsqueeze(-1).shape, u.squeeze().shape, torch.zeros(1, 3, 1).squeeze(0).shape)
e = torch.tensor([[1.0], [2.0]]).expand(2, 3)
print(e)
print(torch.arange(8).reshape(2, 2, 2).flatten())
print(torch.arange(8).view(2, -1))

w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(w.view(4).grad_fn, w.t().grad_fn, w.unsqueeze(0).grad_fn)
print(w.permute(1, 0).grad_fn, w.transpose(0, 1).grad_fn, w.expand(3, 2, 2).grad_fn)
y = (w.view(4) * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum() + w.t()[0].sum()
y.backward()
print(w.grad)
