# Activations with parameters: values, gradients and grad_fn names.
import torch
import torch.nn.functional as F

x = torch.tensor([-3.0, -1.0, -0.25, 0.0, 0.5, 1.5, 7.0], requires_grad=True)
cases = [
    ('hardtanh', lambda t: F.hardtanh(t)),
    ('hardtanh(-0.5, 2)', lambda t: F.hardtanh(t, -0.5, 2.0)),
    ('relu6', lambda t: F.relu6(t)),
    ('leaky_relu', lambda t: F.leaky_relu(t)),
    ('leaky_relu(0.2)', lambda t: F.leaky_relu(t, 0.2)),
    ('leaky_relu(slope=-0.5)', lambda t: F.leaky_relu(t, negative_slope=-0.5)),
    ('elu', lambda t: F.elu(t)),
    ('elu(0.5)', lambda t: F.elu(t, alpha=0.5)),
    ('selu', lambda t: F.selu(t)),
    ('torch.selu', lambda t: torch.selu(t)),
    ('celu(0.7)', lambda t: F.celu(t, 0.7)),
    ('torch.celu', lambda t: torch.celu(t, alpha=2.0)),
    ('softplus', lambda t: F.softplus(t)),
    ('softplus(2, 1)', lambda t: F.softplus(t, beta=2, threshold=1)),
    ('gelu', lambda t: F.gelu(t)),
    ('gelu(tanh)', lambda t: F.gelu(t, approximate='tanh')),
    ('threshold(0.1, 20)', lambda t: F.threshold(t, 0.1, 20.0)),
    ('torch.threshold', lambda t: torch.threshold(t, -1.0, -2.0)),
    ('hardshrink', lambda t: F.hardshrink(t)),
    ('hardshrink(1)', lambda t: torch.hardshrink(t, 1.0)),
    ('method hardshrink', lambda t: t.hardshrink(lambd=0.25)),
    ('softshrink', lambda t: F.softshrink(t)),
    ('softshrink(1)', lambda t: F.softshrink(t, 1.0)),
]
for name, f in cases:
    x.grad = None
    y = f(x)
    y.backward(torch.arange(1.0, 8.0))
    print(name, y.grad_fn.name())
    print(y)
    print(x.grad)

d = torch.tensor([[-2.0, 0.3], [0.7, -0.1]], dtype=torch.float64, requires_grad=True)
print(F.elu(d, 0.3))
print(F.softplus(d, 3.0, 0.5))
print(F.leaky_relu(d, 0.05))
print(F.hardtanh(torch.tensor([-3, 0, 5]), -1, 2))
print(F.threshold(torch.tensor([-3, 0, 5]), 0, 9))
print(F.relu6(torch.tensor([-3, 2, 9])))
