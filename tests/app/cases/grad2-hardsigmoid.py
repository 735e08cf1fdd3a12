# hardsigmoid's backward has no derivative in PyTorch 1.13: under
# create_graph its gradient still requires grad, through a
# torch::autograd::NotImplemented node, and a backward through that fails
# with PyTorch's message.
import torch
import torch.nn.functional as F

x = torch.tensor([-4.0, -1.0, 0.5, 2.9, 3.5], requires_grad=True)
g, = torch.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
print(g, g.grad_fn, g.requires_grad, g.is_leaf)
print(g.grad_fn.name(), [type(n).__name__ for n, _ in g.grad_fn.next_functions])
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
v = torch.ones(5, requires_grad=True)
g, = torch.autograd.grad(F.hardsigmoid(x), x, v, create_graph=True)
print(g.grad_fn.name(), len(g.grad_fn.next_functions))
g, = torch.autograd.grad(F.hardsigmoid(x * 2).sum(), x, create_graph=True)
print(g.grad_fn.name(), [type(n).__name__ for n, _ in g.grad_fn.next_functions])
y = x.detach().requires_grad_()
g, = torch.autograd.grad(F.hardsigmoid(y).sum(), y)
print(g, g.grad_fn)
torch.autograd.grad(torch.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)[0].sum(), x)
