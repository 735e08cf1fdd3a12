# nn.PReLU and F.prelu, as super-resolution and older CNN tutorials use them.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
m = nn.PReLU(3, init=0.2)
x = torch.randn(2, 3, 2, requires_grad=True)
y = m(x)
print(m, y)
print(y.grad_fn.name(), y.grad_fn._saved_self is x, y.grad_fn._saved_weight is m.weight)
y.sum().backward()
print(x.grad, m.weight.grad)
print(nn.PReLU()(torch.tensor([-1.0, 2.0])), F.prelu(torch.tensor([-1.0, 2.0]), torch.tensor([0.5])))

net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.PReLU(4), nn.Conv2d(4, 1, 3, padding=1), nn.PReLU())
img = torch.randn(2, 1, 5, 5)
loss = (net(img) - img).pow(2).mean()
loss.backward()
print(loss, net[1].weight.grad, net[3].weight.grad)
print([n for n, _ in net.named_parameters()])
p = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
a = torch.tensor([0.25], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(F.prelu, (p, a)))
try:
    F.prelu(x, torch.ones(2))
except RuntimeError as e:
    print("RuntimeError:", e)
