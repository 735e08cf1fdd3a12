import torch
torch.manual_seed(3)
a = torch.randn(4, 3, requires_grad=True)
b = torch.randn(4, 3, requires_grad=True)
c = torch.cross(a, b, dim=1)
print(c)
g = c.grad_fn
print(g.name(), g._saved_dim, g._saved_self.shape, g._saved_other.shape)
(c * torch.arange(12.0).reshape(4, 3)).sum().backward()
print(a.grad, b.grad, sep="\n")
# torch.linalg.cross broadcasts; the default dim is -1
u = torch.tensor([[1.0, 0.0, 0.0]], requires_grad=True)
v = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]])
w = torch.linalg.cross(u, v)
print(w, w.grad_fn, w.grad_fn._saved_self is None)
w.sum().backward()
print(u.grad)
# torch.cross without dim: the first dim of size 3
m = torch.arange(9.0).reshape(3, 3)
print(torch.cross(m, m.flip(0)))
print(m.cross(m.t(), 1))
# second derivative
p = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
q = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
gp, = torch.autograd.grad(torch.cross(p, q, dim=0).pow(2).sum(), p, create_graph=True)
print(gp, gp.grad_fn)
print(torch.autograd.grad(gp.sum(), q)[0])
try:
    torch.linalg.cross(torch.randn(3), torch.randn(2, 3))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.cross(torch.randn(2, 4), torch.randn(2, 4))
except RuntimeError as e:
    print("RuntimeError:", e)
torch.linalg.cross(torch.randn(2, 3), torch.randn(2, 3), dim=0)
