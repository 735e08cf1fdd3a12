# add, sub and rsub with alpha: the scalar graph scales the operand alpha
# multiplies (test-op-scalars opens every step of this script).
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 5.0], requires_grad=True)
c = torch.rsub(a, b, alpha=2)
d = torch.sub(c, a, alpha=3)
e = torch.add(d, b, alpha=0.5)
f = e.add(2, alpha=3)
g = torch.sub(f, 1.5, alpha=-2)
h = torch.rsub(g, 4.0, alpha=0.5)
(h * torch.tensor([1.0, -2.0])).sum().backward()
print(c, d, e, f, g, h, sep="\n")
print(a.grad, b.grad)
