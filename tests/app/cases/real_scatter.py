# scatter_ for one-hot labels, scatter_add for counts, and their gradients
import torch
labels = torch.tensor([2, 0, 1])
print(torch.zeros(3, 4).scatter_(1, labels.unsqueeze(1), 1.0))
src = torch.arange(1., 11.).reshape(2, 5)
index = torch.tensor([[0, 1, 2, 0]])
print(torch.zeros(3, 5, dtype=src.dtype).scatter_(0, index, src))
print(torch.zeros(3, 5).scatter(1, torch.tensor([[0, 1], [2, 3]]), src))
print(torch.zeros(5).scatter_add(0, torch.tensor([0, 0, 2, 4]), torch.tensor([1., 2., 3., 4.])))
counts = torch.zeros(4, dtype=torch.int64)
counts.scatter_add_(0, torch.tensor([1, 1, 3]), torch.ones(3, dtype=torch.int64))
print(counts)
x = torch.ones(2, 3, requires_grad=True)
s = torch.tensor([[5., 6.], [7., 8.]], requires_grad=True)
y = x.scatter(1, torch.tensor([[0, 2], [1, 0]]), s)
print(y)
(y * torch.arange(6.).view(2, 3)).sum().backward()
print(x.grad, s.grad)
z = x.scatter(0, torch.tensor([[1, 0, 1]]), 0.5)
print(z)
w = x.scatter_add(1, torch.tensor([[0, 0], [2, 1]]), s)
print(w)
w.sum().backward()
print(s.grad)
try:
    torch.zeros(3).scatter_(0, torch.tensor([3]), 1.0)
except RuntimeError as e:
    print(e)
try:
    torch.zeros(2, 2).scatter_(0, torch.tensor([[0, 1, 0]]), torch.ones(1, 3))
except RuntimeError as e:
    print(e)
