# nn modules of the activations with parameters: repr, values, grad_fn.
import torch
import torch.nn as nn

mods = [nn.Hardtanh(-2.0, 2.0), nn.ReLU6(), nn.ReLU6(inplace=True), nn.LeakyReLU(),
        nn.LeakyReLU(0.2, inplace=True), nn.ELU(), nn.ELU(alpha=0.5, inplace=True), nn.CELU(),
        nn.CELU(0.5), nn.SELU(), nn.SELU(inplace=True), nn.Softplus(), nn.Softplus(beta=2, threshold=5),
        nn.GELU(), nn.GELU(approximate='tanh'), nn.Threshold(0.1, 20.0),
        nn.Threshold(0.1, 20.0, inplace=True), nn.Hardshrink(), nn.Hardshrink(lambd=1.0),
        nn.Softshrink(), nn.Softshrink(0.25)]
x = torch.tensor([-2.5, -0.75, -0.1, 0.2, 0.9, 3.0], requires_grad=True)
for m in mods:
    x.grad = None
    y = m(x * 1.0)
    y.sum().backward()
    print(m, y.grad_fn.name())
    print(y)
    print(x.grad)
net = nn.Sequential(nn.Linear(3, 4), nn.LeakyReLU(0.1, inplace=True), nn.Linear(4, 2), nn.CELU(0.7))
print(net)
