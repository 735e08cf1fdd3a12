# A gradient through leaky_relu made with create_graph=True is itself a node
# (LeakyReluBackwardBackward0, as in PyTorch), so it can be differentiated
# again: zero in x where leaky_relu is linear, and by way of the incoming
# gradient where that depends on x.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -1.5]], requires_grad=True)
y = F.leaky_relu(x, 0.2).pow(2).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
print(g.grad_fn.name(), [n[0].name() if n[0] else None for n in g.grad_fn.next_functions])
h, = torch.autograd.grad(g.sum(), x)
print(h)

z = F.leaky_relu(x, 0.1).sum()
g2, = torch.autograd.grad(z, x, create_graph=True)
print(g2, g2.grad_fn.name())
print(torch.autograd.grad(g2.sum(), x))

m = torch.nn.LeakyReLU(0.3)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
out = m(x * w).sum()
gw, = torch.autograd.grad(out, w, create_graph=True)
print(gw, gw.grad_fn.name())
print(torch.autograd.grad(gw.sum(), x))
