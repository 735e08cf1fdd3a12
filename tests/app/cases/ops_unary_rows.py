# The functions of one tensor added as rows of core/cr-unary-ops.def: values,
# grad_fn names, first and second derivatives, integer promotion, in-place and
# aliased spellings, and PyTorch's refusals.
import torch
import torch.nn.functional as F

x = torch.tensor([0.25, -0.5, 0.75], requires_grad=True)
names = ["tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "atanh", "erf", "erfc",
         "exp2", "trunc", "frac", "floor", "ceil", "round"]
for name in names:
    y = getattr(torch, name)(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    # (exp2's gradient ends in PyTorch's MulBackward1, a node Chainrule lacks)
    if g.requires_grad:
        print(name, y, g.detach(), torch.autograd.grad(g.sum(), x)[0])
    else:
        print(name, y, g, g.requires_grad)

p = torch.tensor([0.5, 2.0, 10.0], requires_grad=True)
for name in ["log10", "log2"]:
    y = getattr(torch, name)(p)
    g, = torch.autograd.grad(y.sum(), p, create_graph=True)
    print(name, y, g, torch.autograd.grad(g.sum(), p)[0])
y = torch.acosh(p + 1)
print(y, torch.autograd.grad(y.sum(), p)[0])

v = torch.tensor([-4.0, -2.0, -0.5, 0.0, 1.5, 3.5], requires_grad=True)
for name in ["hardsigmoid", "hardswish"]:
    y = getattr(F, name)(v)
    y.sum().backward()
    print(name, y, v.grad)
    v.grad = None

# Methods, in place, aliases
t = torch.tensor([1.25, -2.75, 3.5])
print(t.atan(), torch.arctan(t), t.arcsinh(), torch.fix(t), t.fix(), t.frac())
u = t.clone()
u.trunc_()
print(u, torch.tan_(t.clone()), t.clone().erf_(), t.clone().floor_(), t.clone().ceil_())
w = torch.tensor([0.5, 1.5], requires_grad=True)
h = w * 1
h.sinh_()
print(h)
h.sum().backward()
print(w.grad)

# Integers: the float functions give float32, rounding keeps int64
i = torch.tensor([1, -2, 3])
print(torch.atan(i), torch.exp2(i), torch.log2(i.abs()), torch.erf(i))
print(torch.trunc(i), torch.floor(i), torch.round(i), torch.ceil(i))
b = torch.tensor([True, False])
print(torch.sinh(b), torch.log10(b))
print(torch.tensor([1.0, 2.0], dtype=torch.float64).tan())
# (the kernel's name, "frac_cpu", is left out: the same script runs on CUDA)
for f in [lambda: torch.frac(i), lambda: torch.trunc(b), lambda: F.hardswish(i),
          lambda: torch.floor(b)]:
    try:
        f()
    except RuntimeError as e:
        print("RuntimeError:", str(e).split('"')[-1])
z = torch.tensor([1.5, -1.5])
try:
    i.sin_()
except RuntimeError as e:
    print("RuntimeError:", e)
print(z.round(), torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])))

# erfinv (PyTorch's algorithm): values, gradient, in place, integers
e = torch.tensor([-0.95, -0.3, 0.0, 0.5, 0.9], requires_grad=True)
y = torch.erfinv(e)
g, = torch.autograd.grad(y.sum(), e, create_graph=True)
print(y, g.detach(), torch.autograd.grad(g.sum(), e)[0])
print(torch.erfinv(torch.tensor([0, 1, -1])), torch.tensor([0.25, 2.0]).erfinv_())

# sgn, deg2rad, rad2deg, sinc (its second derivative is NaN at 0, as PyTorch's)
# (no whole numbers but 0: sin(πn) is rounding noise, float32's on the CPU and
# double's in the CUDA mock)
s = torch.tensor([-1.5, 0.0, 2.5, 0.25], requires_grad=True)
for name in ["sgn", "deg2rad", "rad2deg", "sinc"]:
    y = getattr(torch, name)(s)
    g, = torch.autograd.grad(y.sum(), s, create_graph=True)
    second = torch.autograd.grad(g.sum(), s)[0] if g.requires_grad else None
    print(name, y, g.detach(), second)
print(torch.sgn(torch.tensor([True, False])), torch.sgn(torch.tensor([3, -4])),
      torch.deg2rad(torch.tensor([180, 90])), torch.sinc(torch.tensor([0, 1])).dtype)

# F.silu is a row now: one kernel, PyTorch's x / (1 + e^-x), and in place too
v = torch.tensor([-3.0, -0.7, 0.0, 0.4, 2.5, 30.0], requires_grad=True)
y = F.silu(v)
g, = torch.autograd.grad(y.sum(), v, create_graph=True)
print(y, g, torch.autograd.grad(g.sum(), v)[0])
w = v * 1
F.silu(w, inplace=True)
print(w, torch.nn.SiLU(inplace=True))
