import torch
import torch.nn.functional as F

x = (torch.arange(24.0) * 0.37).sin().reshape(4, 3, 2).requires_grad_()
rm = torch.zeros(3)
rv = torch.ones(3)
w = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
print(y)
print(y.grad_fn)
print(y.grad_fn.next_functions)
print(rm)
print(rv)
(y * torch.arange(24.0).reshape(4, 3, 2)).sum().backward()
print(x.grad)
print(w.grad)
print(b.grad)

# eval uses the running statistics
x.grad = None
e = F.batch_norm(x, rm, rv, w, b)
print(e)
print(e.grad_fn)
e.pow(2).sum().backward()
print(x.grad)
print(w.grad)

# (N, C) and (N, C, H, W), no affine, no running stats
x2 = torch.tensor([[1.0, 2.0], [3.0, 5.0], [-1.0, 0.5]], requires_grad=True)
y2 = F.batch_norm(x2, None, None, training=True)
print(y2)
print(y2.grad_fn.next_functions)
(y2[:, 0] * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x2.grad)
x4 = (torch.arange(48.0) * 0.61).cos().reshape(2, 3, 2, 4)
rm4 = torch.full((3,), 0.5)
rv4 = torch.full((3,), 2.0)
y4 = F.batch_norm(x4, rm4, rv4, training=True)
print(y4[1, 2])
print(rm4, rv4)
print(F.batch_norm(x4, rm4, rv4)[0, 1])

# double backward
z = torch.tensor([[1.0, -2.0], [0.5, 0.25], [1.5, -1.0]], requires_grad=True)
out = F.batch_norm(z, None, None, training=True)
g, = torch.autograd.grad((out * torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 2.0]])).sum(), z, create_graph=True)
print(g.detach())
g.pow(2).sum().backward()
print(z.grad)
