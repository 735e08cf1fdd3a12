# max/min over everything and along a dimension (values and indices), argmax,
# keepdim, and where their gradients go.
import torch
x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
print(x.max(), x.min())
values, indices = x.max(dim=1)
print(values, indices)
r = torch.max(x, 0)
print(r)
print(r.values, r.indices)
print(x.min(dim=0, keepdim=True))
print(x.argmax(), x.argmax(dim=1), torch.argmin(x, dim=0))
print(values.grad_fn, x.max().grad_fn)
values.sum().backward()
print(x.grad)
x.grad = None
x.min().backward()
print(x.grad)
