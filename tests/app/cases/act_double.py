# Second derivatives of the activations with parameters (create_graph).
import torch
import torch.nn.functional as F

x = torch.tensor([-2.0, -0.7, -0.2, 0.3, 0.9, 2.5], dtype=torch.float64, requires_grad=True)
fs = [
    ('elu', lambda t: F.elu(t, 0.6)),
    ('selu', lambda t: F.selu(t)),
    ('celu', lambda t: F.celu(t, 1.5)),
    ('softplus', lambda t: F.softplus(t, 2.0, 3.0)),
    ('gelu', lambda t: F.gelu(t)),
    ('gelu tanh', lambda t: F.gelu(t, approximate='tanh')),
    ('leaky_relu', lambda t: F.leaky_relu(t, 0.3) * t),
    ('hardtanh', lambda t: F.hardtanh(t, -1.0, 1.0) * t),
    ('softshrink', lambda t: F.softshrink(t, 0.5) ** 2),
    ('hardshrink', lambda t: F.hardshrink(t, 0.5) ** 2),
    ('threshold', lambda t: F.threshold(t, 0.0, 1.0) ** 2),
]
for name, f in fs:
    y = f(x).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    print(name)
    print(g.detach())
    print(h)
print(torch.autograd.gradcheck(lambda t: F.elu(t, 0.6), (x,)))
print(torch.autograd.gradgradcheck(lambda t: F.softplus(t, 2.0, 3.0), (x,)))
print(torch.autograd.gradgradcheck(lambda t: F.gelu(t, approximate='tanh'), (x,)))
