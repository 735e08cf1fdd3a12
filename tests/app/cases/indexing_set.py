# Assigning into tensors: x[i] = v, x[:, j] = number, slices from a tensor; on
# a non-leaf result the graph records CopySlices and the overwritten part gets
# no gradient.
import torch
x = torch.zeros(3, 4)
x[0] = torch.tensor([1.0, 2.0, 3.0, 4.0])
x[:, 1] = 7.0
x[2, 2:] = torch.tensor([8.0, 9.0])
x[-1, 0] = -1
print(x)

w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = w * 2
y[1] = 0.0
y[2:] = y[2:] * 10
print(y)
print(y.grad_fn)
y.sum().backward()
print(w.grad)
