# A transposed convolution (conv_transpose1d/2d, with stride, padding,
# output_padding and groups) opens as a scalar graph: each output element a
# sum of the products that reach it, the adjoint of a convolution.
import torch
import torch.nn.functional as F

x = torch.tensor([[[[1.0, -2.0], [0.5, 3.0]]]], requires_grad=True)
w = torch.tensor([[[[0.5, -1.0], [2.0, 0.25]]]], requires_grad=True)
b = torch.tensor([0.1], requires_grad=True)
y = F.conv_transpose2d(x, w, b)
z = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
s = torch.tensor([[[1.0, 2.0, -1.0]], [[0.5, -0.5, 3.0]]], requires_grad=True)
k = torch.tensor([[[1.0, 0.0, -2.0]]], requires_grad=True)
c = F.conv_transpose1d(s, k, stride=2)
g = torch.tensor([[[1.0, -1.0], [2.0, 0.5]]], requires_grad=True)
gk = torch.tensor([[[1.0, 2.0]], [[-1.0, 0.5]]], requires_grad=True)
gc = F.conv_transpose1d(g, gk, groups=2)
loss = (y * torch.arange(9.0).view(1, 1, 3, 3)).sum() + (z * z).sum() + (c * c).sum()
loss = loss + (gc * torch.tensor([[[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]])).sum()
loss.backward()
print(y)
print(z)
print(c)
print(gc)
print(loss)
print(x.grad)
print(w.grad)
print(b.grad)
print(s.grad)
print(k.grad)
print(g.grad)
print(gk.grad)
