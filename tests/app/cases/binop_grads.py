# Binary rows: gradients (broadcast back), grad_fn names, next_functions
import torch

def names(fn, depth=0, out=None):
    out = [] if out is None else out
    if fn is None or depth > 5:
        return out
    out.append("  " * depth + fn.name().replace("torch::autograd::", ""))
    for f, _ in fn.next_functions:
        names(f, depth + 1, out)
    return out

a = torch.tensor([[1.5, -2.0, 0.5], [3.0, -0.5, 4.0]], requires_grad=True)
b = torch.tensor([2.0, -1.5, 0.25], requires_grad=True)
for name in ["atan2", "hypot", "copysign", "xlogy", "logaddexp", "logaddexp2",
             "fmax", "fmin", "fmod", "remainder", "maximum", "minimum"]:
    a.grad = None
    b.grad = None
    bb = b.abs() if name == "xlogy" else b
    r = getattr(torch, name)(a, bb)
    print(name, r.grad_fn.name(), len(r.grad_fn.next_functions))
    (r * torch.arange(6.0).reshape(2, 3)).sum().backward()
    print(a.grad)
    print(b.grad)

for name, other in [("fmod", 1.5), ("remainder", -2), ("copysign", -1.0), ("xlogy", 2.0)]:
    r = getattr(torch, name)(a, other)
    print(name, "number", r.grad_fn.name(), len(r.grad_fn.next_functions))
    g, = torch.autograd.grad(r.sum(), a)
    print(g)

x = torch.tensor([5.0, -3.5, 2.0], requires_grad=True)
y = torch.tensor([2.0, 2.0, -1.5], requires_grad=True)
print((x % 2).grad_fn.name(), (x % y).grad_fn.name())

# ties share the gradient; NaN picks a side
p = torch.tensor([1.0, 2.0, float("nan")], requires_grad=True)
q = torch.tensor([1.0, 3.0, 0.0], requires_grad=True)
torch.maximum(p, q).sum().backward()
print(p.grad, q.grad)
p.grad = None
q.grad = None
torch.fmax(p, q).sum().backward()
print(p.grad, q.grad)

# a number in a backward formula is PyTorch's mul.Scalar: MulBackward1
print((2 * x).grad_fn.name(), torch.mul(x, 3).grad_fn.name(), x.mul(3).grad_fn.name())
for label, f in [("pow3", lambda t: t ** 3), ("sqrt", lambda t: t.abs().sqrt()),
                 ("exp2", torch.exp2), ("erf", torch.erf), ("maximum", lambda t: torch.maximum(t, y))]:
    g, = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    print(label, g)
    print("\n".join(names(g.grad_fn)))

# second derivatives through the new rows
for name in ["atan2", "hypot", "logaddexp", "xlogy"]:
    u = torch.tensor([0.7, 1.3], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([1.1, 0.4], dtype=torch.float64, requires_grad=True)
    r = getattr(torch, name)(u, v).sum()
    gu, gv = torch.autograd.grad(r, (u, v), create_graph=True)
    h, = torch.autograd.grad((gu * gv).sum(), u)
    print(name, gu.grad_fn.name(), h)
