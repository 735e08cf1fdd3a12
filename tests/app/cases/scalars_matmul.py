# A 2x2 matmul and the ops people meet around it, small enough to open as
# scalars (chainrule explain-op): c[0, 0] = a[0, 0]*b[0, 0] + a[0, 1]*b[1, 0].
import torch

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
c = a @ b
d = torch.tanh(c / 4)
v = torch.tensor([1.0, -2.0], requires_grad=True)
e = torch.mv(a, v)
f = torch.dot(v, v)
# addmv: beta·bias + alpha·(a @ v), the bias broadcast
bias = torch.tensor([0.5], requires_grad=True)
g = torch.addmv(bias, a, v, beta=0.5, alpha=2)
L = (d * d).sum() + e.sum() * 0.5 + f + (g * g).sum()
L.backward()
print(c)
print(L)
print(a.grad)
print(b.grad)
print(v.grad)
print(g, bias.grad)
