# Second derivatives with torch.autograd.grad(create_graph=True): the first
# derivative has a grad_fn of its own and can be differentiated again.
import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
dy, = torch.autograd.grad(y, x, create_graph=True)
print(dy)
d2y, = torch.autograd.grad(dy, x, create_graph=True)
print(d2y)
d3y, = torch.autograd.grad(d2y, x)
print(d3y)

t = torch.tensor([0.5, 1.0], requires_grad=True)
f = (torch.sin(t) * t).sum()
g, = torch.autograd.grad(f, t, create_graph=True)
print(g)
g.sum().backward()
print(t.grad)

a = torch.tensor(1.5, requires_grad=True)
b = torch.tensor(-2.0, requires_grad=True)
h = a * a * b + torch.exp(a * b)
ga, gb = torch.autograd.grad(h, [a, b], create_graph=True)
print(ga, gb)
gab, = torch.autograd.grad(ga, b)
print(gab)
