# Unary functions: values, grad_fn names and the local derivative that backward
# multiplies in (checked with x.grad after summing each output).
import torch
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
fns = [torch.exp, torch.log, torch.sin, torch.cos, torch.tanh, torch.sigmoid,
       torch.relu, torch.sqrt, torch.abs, torch.reciprocal, torch.log1p,
       torch.expm1, torch.rsqrt, torch.neg]
for f in fns:
    y = f(x)
    y.sum().backward()
    print(y)
    print(x.grad)
    x.grad = None
z = torch.tensor([-1.5, 0.0, 2.0], requires_grad=True)
s = torch.sign(z)
print(s)
a = z.abs()
a.sum().backward()
print(z.grad)
r = torch.relu(z)
print(r)
