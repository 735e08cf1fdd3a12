# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
b.mul_(2)
try:
    b.sum().backward()
except RuntimeError as e:
    print(e)
c = a * 1
d = c.exp()
c += 1
try:
    d.sum().backward()
except RuntimeError as e:
    print(e)
x = torch.ones(3, requires_grad=True)
y = x.clone()
y[0] = 5
print(y.grad_fn)
y.sum().backward()
print(x.grad)
w = torch.zeros(2, 2)
w[0, :] = torch.tensor([1.0, 2.0])
w[:, 1] += 1
print(w, w._version)
t = torch.ones(2, requires_grad=True)
u = t.relu()
u.relu_()
print(u.grad_fn)
v = torch.randn(2, 2).abs_()
print(v.ge(0).all())
