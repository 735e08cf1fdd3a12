import torch
import torch.nn.functional as F

x = (torch.arange(24.0) * 0.37).sin().reshape(2, 3, 4).requires_grad_()
w = torch.linspace(0.5, 2.0, 4).requires_grad_()
b = torch.linspace(-1.0, 1.0, 4).requires_grad_()
y = F.layer_norm(x, (4,), w, b)
print(y)
print(y.grad_fn)
print(y.grad_fn.next_functions)
(y * torch.arange(24.0).reshape(2, 3, 4)).sum().backward()
print(x.grad)
print(w.grad)
print(b.grad)

x.grad = None
y2 = F.layer_norm(x, [3, 4], eps=1e-3)
print(y2)
print(y2.grad_fn.next_functions)
(y2 ** 3).sum().backward()
print(x.grad)

y3 = torch.layer_norm(x.detach().double(), (3, 4))
print(y3)
print(y3.mean().item() < 1e-12)

# double backward
z = torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]], requires_grad=True)
out = F.layer_norm(z, (3,))
g, = torch.autograd.grad((out * torch.tensor([1.0, 2.0, 3.0])).sum(), z, create_graph=True)
print(g.detach())
g.pow(2).sum().backward()
print(z.grad)
