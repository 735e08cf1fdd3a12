# Adding tensors whose shapes do not broadcast: PyTorch's RuntimeError names
# the sizes and the dimension.
import torch
a = torch.ones(2, 3)
b = torch.ones(3, 2)
print(a.shape, b.shape)
c = a + b
print(c)
