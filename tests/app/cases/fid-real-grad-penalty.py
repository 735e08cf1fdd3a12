# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
torch.manual_seed(11)
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
real = torch.randn(4, 2)
fake = torch.randn(4, 2)
alpha = torch.rand(4, 1)
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
d_out = D(interp)
grads = torch.autograd.grad(outputs=d_out, inputs=interp,
                            grad_outputs=torch.ones_like(d_out),
                            create_graph=True, retain_graph=True)[0]
gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
print(grads.shape, gp.grad_fn)
gp.backward()
print(D[0].weight.grad)
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
dy, = torch.autograd.grad(y, x, create_graph=True)
d2y, = torch.autograd.grad(dy, x)
print(dy, d2y)
from torch.autograd.functional import jacobian, hessian
def f(v):
    return (v ** 2).sum()
print(jacobian(lambda v: v ** 2, torch.tensor([1.0, 2.0])))
print(hessian(f, torch.tensor([1.0, 2.0])))
