# A create_graph gradient through softplus is PyTorch's
# SoftplusBackwardBackward0, and its second and third derivatives are
# right (on both sides of the threshold, where softplus is linear).
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.3], [0.5, -0.25, 12.0]], requires_grad=True)
w = torch.tensor([[0.5, 1.0, -2.0], [3.0, 0.1, 1.0]], requires_grad=True)
for name, f in [("softplus", lambda t: F.softplus(t)),
                ("beta2", lambda t: F.softplus(t, beta=2.0, threshold=5.0)),
                ("module", lambda t: torch.nn.Softplus(0.5, 3.0)(t))]:
    y = (f(x) * w).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    print(name, g, g.grad_fn.name(), [n[0].name() if n[0] else None for n in g.grad_fn.next_functions])
    gx, gw = torch.autograd.grad((g * g).sum(), (x, w), create_graph=True)
    print(gx, gx.grad_fn.name())
    print(gw)
    print(torch.autograd.grad((gx * w).sum(), x)[0])
