# Gradients through hardtanh, relu6, hardshrink, softshrink and threshold
# made with create_graph=True are PyTorch's own nodes
# (HardtanhBackwardBackward0, ...), so they can be differentiated again:
# zeros in x, and the gate itself in the incoming gradient.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.3], [0.5, -0.25, -1.5]], requires_grad=True)
w = torch.tensor([[0.5, 1.0, -2.0], [3.0, 0.1, 1.0]], requires_grad=True)
cases = [
    ("hardtanh", lambda t: F.hardtanh(t, -1.0, 0.4)),
    ("relu6", lambda t: F.relu6(t * 4)),
    ("hardshrink", lambda t: F.hardshrink(t, 0.4)),
    ("softshrink", lambda t: F.softshrink(t, 0.4)),
    ("threshold", lambda t: F.threshold(t, 0.3, -7.0)),
    ("relu", lambda t: F.relu(t)),
]
for name, f in cases:
    y = (f(x) * w).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    print(name, g, g.grad_fn.name(), [n[0].name() if n[0] else None for n in g.grad_fn.next_functions])
    gx, gw = torch.autograd.grad((g * g).sum(), (x, w))
    print(gx)
    print(gw)

# in place: hardtanh_ and threshold_ on a non-leaf
t = x * 1.0
F.hardtanh_(t, -1.0, 0.4)
g, = torch.autograd.grad((t * w).sum(), x, create_graph=True)
print(g, g.grad_fn.name())
u = x * 1.0
torch.threshold_(u, 0.3, 0.0)
g, = torch.autograd.grad((u * w).sum(), x, create_graph=True)
print(g, g.grad_fn.name())
print(torch.autograd.grad(g.sum(), w))
