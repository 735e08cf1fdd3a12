# A range indexes as the list of its ints, also in assignment and backward.
import torch
x = torch.arange(10.).reshape(5, 2)
print(x[range(2)], x[range(1, 5, 2)], x[range(4, 0, -2), 1], x[range(0)])
y = torch.zeros(6)
y[range(0, 6, 3)] = 7
print(y)
w = torch.ones(4, requires_grad=True)
(w[range(1, 3)] * 3).sum().backward()
print(w.grad)
