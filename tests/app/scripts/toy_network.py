# The toy network of the seed tutorial; --trace-backward shows each step.
import torch

a = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
w1 = torch.tensor([[1.0, 2.0], [0.5, 0.5]], requires_grad=True)
w2 = torch.tensor([[0.25, -0.5], [1.0, -1.0]], requires_grad=True)
w3 = torch.tensor([[1.0, -1.0], [2.0, 0.5]], requires_grad=True)
w4 = torch.tensor([[-0.5, 1.0], [1.0, 1.0]], requires_grad=True)
b = w1 * a
c = w2 * a
d = w3 * b + w4 * c
L = (10 - d).sum()
L.backward()
print(a.grad)
