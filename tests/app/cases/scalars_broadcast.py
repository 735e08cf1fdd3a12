# Elementwise ops with broadcasting: the gradient of a broadcast input is a
# sum over every output element it reached (the scalar graph's edges).
import torch

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
row = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
col = torch.tensor([[2.0], [-0.5]], requires_grad=True)
s = torch.tensor(3.0, requires_grad=True)
y = x * row + col
z = y / s - 1
w = torch.relu(z) + torch.sigmoid(y) * torch.exp(-x)
p = (x * x + 1) ** 1.5
q = torch.log(p) - 2 / (1 + y * y)
L = w.sum() + q.mean() + (row - col).pow(2).sum()
L.backward()
print(L)
print(x.grad)
print(row.grad)
print(col.grad)
print(s.grad)
