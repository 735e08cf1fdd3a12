import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
x = torch.arange(1.0, 11.0, requires_grad=True)
h = x * 1
y = F.dropout(h, 0.5, inplace=True)
print(y is h, y, y.grad_fn, y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)

z = torch.ones(2, 3, 2, 2)
print(F.dropout2d(z, 0.5, inplace=True) is z, z[:, :, 0, 0])
print(F.dropout(torch.ones(4), 1.0, inplace=True))

net = nn.Sequential(nn.Linear(4, 3), nn.Dropout(0.5, inplace=True))
print(net)
out = net(torch.ones(2, 4))
print(out)
out.sum().backward()
print(net[0].weight.grad)

leaf = torch.ones(3, requires_grad=True)
try:
    F.dropout(leaf, 0.5, inplace=True)
except RuntimeError as e:
    print(e)
