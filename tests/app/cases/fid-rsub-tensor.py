# torch.rsub(x, tensor, alpha=) is PyTorch's rsub.Tensor: one RsubBackward0
# over (x, other); with a Python number it is RsubBackward1.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
t = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.rsub(x, t, alpha=2)
print(y, y.grad_fn, y.grad_fn.next_functions)
print(y.grad_fn._saved_alpha, sorted(a for a in dir(y.grad_fn) if "saved" in a))
y.sum().backward()
print(x.grad, t.grad)
z = torch.rsub(x, t)
print(z, z.grad_fn, z.grad_fn._saved_alpha)
w = torch.rsub(x, 5, alpha=3)
print(w, w.grad_fn, w.grad_fn._saved_alpha)
u = torch.rsub(x, torch.tensor(2.0), alpha=0.5)
print(u, u.grad_fn, u.grad_fn._saved_alpha)
q = 3 - x
print(q.grad_fn, q.grad_fn._saved_alpha)
r = torch.rsub(x, t.detach(), alpha=3)
g, = torch.autograd.grad((r * r).sum(), x, create_graph=True)
print(g, g.grad_fn)
print(torch.rsub(torch.tensor([1, 2]), torch.tensor([5, 6]), alpha=2))
print(torch.rsub(torch.tensor([1, 2]), torch.tensor([5.0, 6.0]), alpha=2))
try:
    torch.rsub(torch.tensor([1, 2]), torch.tensor([5, 6]), alpha=0.5)
except RuntimeError as e:
    print("RuntimeError:", e)
torch.rsub(x, torch.ones(2))
