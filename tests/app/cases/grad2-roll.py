# roll's backward rolls the gradient back (RollBackward0), so a double
# backward through it goes through RollBackward0 again: flattened, along
# dims, with negative and large shifts, and through the incoming gradient.
import torch

x = torch.arange(4., requires_grad=True)
g, = torch.autograd.grad((torch.roll(x, 1) ** 3).sum(), x, create_graph=True)
g2, = torch.autograd.grad(g.sum(), x, create_graph=True)
g3, = torch.autograd.grad(g2.sum(), x)
print(g, g2, g3)
print(g.grad_fn.name(), [type(f).__name__ for f, _ in g.grad_fn.next_functions])

m = torch.arange(6.).reshape(2, 3).requires_grad_()
w = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]])
y = (torch.roll(m, shifts=(1, -5), dims=(0, 1)) ** 2 * w).sum()
gm, = torch.autograd.grad(y, m, create_graph=True)
print(gm)
print(torch.autograd.grad((gm * gm).sum(), m))

v = torch.ones(2, 3, requires_grad=True)
gv, = torch.autograd.grad(torch.roll(m, 7, 1), m, v, create_graph=True)
print(gv.grad_fn.name())
print(torch.autograd.grad((gv * w).sum(), v))

s = torch.tensor(2., requires_grad=True)
gs, = torch.autograd.grad(torch.roll(s, 3) ** 2, s, create_graph=True)
print(gs, torch.autograd.grad(gs, s))
