# var/std with correction= (PyTorch 1.13: an int, with dim; dim=None is
# every dim) and unbiased=, their values, gradients and saved arguments, and
# the TypeError of the overloads 1.13 does not have.
import torch

x = torch.tensor([[1., 2., 4., 7.], [3., 5., 9., 0.5], [2., -1., 6., 8.]], requires_grad=True)

v = x.var(1, correction=0)
print(v, v.grad_fn, v.grad_fn._saved_correction, v.grad_fn._saved_dim)
s = x.std(dim=0, correction=2, keepdim=True)
print(s)
a = torch.var(x, None, correction=3)
print(a, a.grad_fn._saved_dim)
b = torch.std(x, (0, 1), correction=0)
print(b)
c = x.var(-1, correction=None)
print(c, c.grad_fn._saved_correction)
d = x.std(1, unbiased=False)
print(d, d.grad_fn._saved_correction)
e = x.var(False)
print(e)
f = x.var(0, correction=5)
print(f)

(v.sum() + s.sum() * 2 + a + b * 3 + c.sum() + d.sum() + e + (f * 0.5).sum()).backward()
print(x.grad)

g, = torch.autograd.grad(x.std(1, correction=2).sum(), x, create_graph=True)
print(g, g.grad_fn)
h, = torch.autograd.grad(x.var(0, correction=0).sum(), x, create_graph=True)
print(torch.autograd.grad((h * h).sum() + (g * x).sum(), x)[0])

for call in (lambda: x.var(correction=0),
             lambda: torch.std(x, correction=1),
             lambda: x.std(1, correction=1.5),
             lambda: x.var(1, True, correction=0),
             lambda: x.var(correction=0, unbiased=True, dim=1),
             lambda: torch.var(x, 1, correction=0.5, keepdim=True),
             lambda: torch.tensor([1, 2, 3]).var(0, correction=1)):
    try:
        call()
    except (TypeError, RuntimeError) as err:
        print(type(err).__name__, err)
