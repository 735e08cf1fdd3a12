# An in-place change of a tensor saved for backward: backward fails with
# PyTorch's message.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
c = b.sin()
b.add_(1)   # record: culprit
c.sum().backward()
