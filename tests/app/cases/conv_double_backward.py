import torch
import torch.nn.functional as F

x = torch.arange(1 * 2 * 4 * 4, dtype=torch.float64).reshape(1, 2, 4, 4).mul(0.37).sin().requires_grad_()
w = torch.arange(3 * 2 * 2 * 2, dtype=torch.float64).reshape(3, 2, 2, 2).mul(0.21).cos().requires_grad_()

y = F.conv2d(x, w, padding=1, stride=2)
gx, gw = torch.autograd.grad(y.pow(2).sum(), (x, w), create_graph=True)
print(gx.requires_grad, gw.requires_grad)
(gx.sum() + gw.pow(2).sum()).backward()
print(x.grad)
print(w.grad)

x.grad = None
p = F.max_pool2d(x, 2, 1)
g, = torch.autograd.grad(p.pow(3).sum(), x, create_graph=True)
g.sum().backward()
print(x.grad)

x.grad = None
a = F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)
g, = torch.autograd.grad(a.pow(2).sum(), x, create_graph=True)
g.pow(2).sum().backward()
print(x.grad)
