# A create_graph gradient through elu, selu and celu is PyTorch's
# EluBackwardBackward0 (from the input, or from the output of elu_ in
# place), and its second and third derivatives are right.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.3], [0.5, -0.25, -1.5]], requires_grad=True)
w = torch.tensor([[0.5, 1.0, -2.0], [3.0, 0.1, 1.0]], requires_grad=True)
cases = [
    ("elu", lambda t: F.elu(t)),
    ("elu_alpha", lambda t: F.elu(t, alpha=0.7)),
    ("selu", lambda t: F.selu(t)),
    ("celu", lambda t: F.celu(t, alpha=1.3)),
    ("module", lambda t: torch.nn.ELU(0.4)(t)),
]
for name, f in cases:
    y = (f(x) * w).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    print(name, g, g.grad_fn.name(), [n[0].name() if n[0] else None for n in g.grad_fn.next_functions])
    gx, gw = torch.autograd.grad((g * g).sum(), (x, w), create_graph=True)
    print(gx)
    print(gw)
    print(torch.autograd.grad((gx * w).sum(), x)[0])

for name, f in [("elu_", lambda t: F.elu_(t, 0.6)), ("selu_", lambda t: torch.selu_(t)),
                ("celu_", lambda t: F.celu_(t, 2.0))]:
    t = x * 1.0
    f(t)
    g, = torch.autograd.grad((t * w).sum(), x, create_graph=True)
    print(name, g, g.grad_fn.name())
    gx, gw = torch.autograd.grad((g * g).sum(), (x, w))
    print(gx)
    print(gw)
