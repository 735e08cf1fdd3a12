# Reading .grad of an intermediate result.
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * a
loss = b.sum()
loss.backward()
print(a.grad)
print(b.grad)
