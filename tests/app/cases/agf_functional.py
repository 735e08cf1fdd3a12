# torch.autograd.functional as PyTorch 1.13 shapes its results: jacobian and
# hessian of one tensor or of tuples (nested tuples out), vjp / jvp / hvp /
# vhp returning (outputs, products), create_graph keeping the graph, strict
# mode's errors, and v's checks.
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp


def f(a):
    return a ** 3 + a.sin()


def g(a, b):
    return (a * b).sum() + (a ** 2).sum() * b[0]


def two_out(a, b):
    return a * b, (a - b).exp()


x = torch.tensor([0.5, 1.0, -2.0], dtype=torch.float64)
y = torch.tensor([3.0, 4.0, 0.25], dtype=torch.float64)
print(jacobian(f, x))
print(jacobian(f, torch.tensor(0.7, dtype=torch.float64)))
print(jacobian(f, torch.tensor([[1.0, 2.0], [3.0, 4.0]])).shape)
j = jacobian(two_out, (x, y))
print(type(j).__name__, len(j), type(j[0]).__name__, [[t.shape for t in row] for row in j])
print(j)
print(jacobian(lambda a: (a * 2,), x))
print(hessian(lambda a: (a ** 3).sum(), x))
h = hessian(g, (x, y))
print(h)
print(vjp(f, x, torch.ones(3, dtype=torch.float64)))
print(vjp(lambda a: (a ** 2).sum(), x))
print(jvp(f, x, torch.tensor([1.0, 0.0, 2.0], dtype=torch.float64)))
print(jvp(two_out, (x, y), (torch.ones(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64))))
print(hvp(lambda a: (a ** 3).sum(), x, torch.ones(3, dtype=torch.float64)))
print(vhp(g, (x, y), (torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))))

w = torch.tensor([1.0, 2.0], requires_grad=True)
jg = jacobian(lambda a: a ** 2, w, create_graph=True)
print(jg.requires_grad, jg.grad_fn is not None)
jg.sum().backward()
print(w.grad)
jn = jacobian(lambda a: a ** 2, w)
print(jn.requires_grad)
out, prod = vjp(lambda a: a ** 2, w, torch.ones(2), create_graph=True)
print(out.requires_grad, prod.requires_grad)

for call in [lambda: jacobian(lambda a, b: a * 2, (x, y), strict=True),
             lambda: jacobian(lambda a: torch.ones(2), x, strict=True),
             lambda: vjp(f, x, torch.ones(2, dtype=torch.float64)),
             lambda: vjp(f, x),
             lambda: jvp(f, x),
             lambda: hessian(lambda a: a * 2, x),
             lambda: hvp(lambda a: a.sum(), x, (torch.ones(3), torch.ones(3))),
             lambda: jacobian(f, [1.0, 2.0])]:
    try:
        call()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
