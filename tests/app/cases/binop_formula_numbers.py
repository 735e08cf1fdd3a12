# Numbers in backward formulas record what PyTorch's C++ formulas record under
# create_graph: t * 2 is MulBackward1, t + 1 AddBackward1, 1 - t SubBackward0
# (its first input without a gradient), a wrapped number MulBackward0.
import torch

def walk(fn, depth=0):
    if fn is None or depth > 6:
        return
    print("  " * depth + fn.name(), [None if f is None else f.name() for f, _ in fn.next_functions])
    for f, _ in fn.next_functions:
        walk(f, depth + 1)

x = torch.tensor([0.5, -0.25, 0.75], requires_grad=True)
y = torch.tensor([0.2, 0.3, -0.4], requires_grad=True)
print((2 * x).grad_fn.name(), (x * 2).grad_fn.name(), x.mul(2).grad_fn.name())
for label, f in [("pow3", lambda t: t ** 3), ("sqrt", lambda t: t.abs().sqrt()),
                 ("rsqrt", lambda t: t.abs().rsqrt()), ("exp2", torch.exp2),
                 ("erf", torch.erf), ("deg2rad", lambda t: torch.deg2rad(t) * t),
                 ("asin", lambda t: torch.asin(t)), ("acos", torch.acos),
                 ("atanh", torch.atanh), ("silu", torch.nn.functional.silu),
                 ("div", lambda t: t / 3 * t), ("maximum", lambda t: torch.maximum(t, y) * t),
                 ("atan2", lambda t: torch.atan2(t, y)), ("logaddexp", lambda t: torch.logaddexp(t, y)),
                 ("logaddexp2", lambda t: torch.logaddexp2(t, y)), ("hypot", lambda t: torch.hypot(t, y))]:
    g, = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    print(label, g)
    walk(g.grad_fn)
    h, = torch.autograd.grad(g.sum(), x)
    print(h)
