# torch.cdist for p = 2, 1, 3, ∞ and 0 (a row equal to another: a zero
# distance sends nothing back), batched with a broadcast batch dim, and
# F.bilinear (TrilinearBackward0: every term x1[n, i]·A[o, i, j]·x2[n, j]):
# each opens as a scalar graph whose sums equal the step's.
import torch
import torch.nn.functional as F

a = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
b = torch.tensor([[1.0, 0.0, 2.0], [0.5, -1.0, 2.0], [-2.0, 1.0, 0.5]], requires_grad=True)
d2 = torch.cdist(a, b)
d1 = torch.cdist(a, b, p=1)
d3 = torch.cdist(a, b, p=3)
dinf = torch.cdist(a, b, p=float('inf'))
d0 = torch.cdist(a, b, p=0)
u = torch.tensor([[[0.0, 1.0], [2.0, -1.0]], [[1.0, 1.0], [-0.5, 0.25]]], requires_grad=True)
v = torch.tensor([[[1.0, -1.0], [0.5, 0.5], [2.0, 0.0]]], requires_grad=True)
db = torch.cdist(u, v)
print(d2, d1, d3, dinf, d0, db, sep='\n')
x1 = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
x2 = torch.tensor([[2.0, 0.5], [1.0, -2.0]], requires_grad=True)
A = torch.tensor([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]],
                 requires_grad=True)
bias = torch.tensor([0.25, -0.5], requires_grad=True)
y = F.bilinear(x1, x2, A, bias)
print(y)
loss = (d2 * d2.detach()).sum() + d1.sum() + d3.sin().sum() + dinf.sum() + d0.sum()
loss = loss + (db * torch.arange(12.0).reshape(2, 2, 3)).sum() + y.sin().sum()
loss.backward()
print(a.grad, b.grad, u.grad, v.grad, sep='\n')
print(x1.grad, x2.grad, A.grad, bias.grad, sep='\n')
