# Changing in place a tensor that an op saved for its backward.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
y = h.sigmoid()
y.mul_(2)
y.sum().backward()
print(x.grad)
