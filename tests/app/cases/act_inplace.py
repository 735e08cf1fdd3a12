# In-place activations with parameters: PyTorch's nodes (LeakyReluBackward1
# saves the result) and gradients through them.
import torch
import torch.nn as nn
import torch.nn.functional as F

w = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
g = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
cases = [
    ('hardtanh', lambda t: F.hardtanh(t, -1.0, 1.0, inplace=True)),
    ('hardtanh_', lambda t: F.hardtanh_(t, -0.5, 0.5)),
    ('relu6', lambda t: F.relu6(t, inplace=True)),
    ('leaky_relu', lambda t: F.leaky_relu(t, 0.2, inplace=True)),
    ('leaky_relu_', lambda t: F.leaky_relu_(t, 0.3)),
    ('elu', lambda t: F.elu(t, 0.5, inplace=True)),
    ('elu_', lambda t: F.elu_(t)),
    ('selu', lambda t: F.selu(t, inplace=True)),
    ('torch.selu_', lambda t: torch.selu_(t)),
    ('celu', lambda t: F.celu(t, 0.5, inplace=True)),
    ('torch.celu_', lambda t: torch.celu_(t, 2.0)),
    ('threshold', lambda t: F.threshold(t, 0.1, 20.0, inplace=True)),
    ('threshold_', lambda t: torch.threshold_(t, -1.0, 7.0)),
    ('ReLU6 module', nn.ReLU6(inplace=True)),
    ('LeakyReLU module', nn.LeakyReLU(0.1, inplace=True)),
    ('ELU module', nn.ELU(alpha=0.3, inplace=True)),
    ('Hardtanh module', nn.Hardtanh(-0.25, 0.75, inplace=True)),
]
for name, f in cases:
    w.grad = None
    x = w * 1.0
    y = f(x)
    print(name, y is x, y.grad_fn.name(), x._version)
    print(y)
    y.backward(g)
    print(w.grad)

for name, f in [('leaky_relu', lambda t: F.leaky_relu(t, -0.2, inplace=True)),
                ('elu', lambda t: F.elu(t, -0.5, inplace=True)),
                ('celu', lambda t: F.celu(t, -0.5, inplace=True))]:
    y = f(w * 1.0)
    print(name, y)
    try:
        y.sum().backward()
    except RuntimeError as e:
        print('RuntimeError:', e)

leaf = torch.ones(2, requires_grad=True)
try:
    F.leaky_relu(leaf, inplace=True)
except RuntimeError as e:
    print('RuntimeError:', e)
with torch.no_grad():
    t = torch.tensor([-1.0, 3.0])
    F.elu_(t)
    print(t)
