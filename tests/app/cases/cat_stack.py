# torch.cat joins along an existing dimension, torch.stack along a new one;
# both split the gradient back to their inputs.
import torch
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[5.0, 6.0]], requires_grad=True)
c = torch.cat([a, b])
print(c, c.shape)
print(torch.cat((a, a), dim=1))
print(c.grad_fn)
s = torch.stack([a[0], a[1], b[0]])
print(s, s.shape)
print(torch.stack([a, a], dim=2).shape)
print(s.grad_fn)
(c * torch.arange(6.0).view(3, 2)).sum().backward()
print(a.grad)
print(b.grad)
a.grad = None
torch.stack([a, 2 * a]).sum().backward()
print(a.grad)
