import torch
import torch.nn as nn
torch.manual_seed(0)
bl = nn.Bilinear(3, 2, 4)
a = torch.randn(5, 3, requires_grad=True)
b = torch.randn(5, 2)
y = bl(a, b)
print(y.detach())
y.sum().backward()
print(a.grad, bl.weight.grad.sum(), bl.bias.grad)
u = nn.Unflatten(1, (2, 3))
print(u(torch.arange(12.).view(2, 6)).shape)
f = nn.Flatten(0, 1)
print(f(torch.ones(2, 3, 4)).shape)
