# requires_grad on integers.
import torch

x = torch.tensor([1, 2, 3], requires_grad=True)
print((x * x).sum())
