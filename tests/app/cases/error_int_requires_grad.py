# Only floating-point tensors can require gradients.
import torch
print(torch.tensor([1.0, 2.0], requires_grad=True))
n = torch.tensor([1, 2], requires_grad=True)
