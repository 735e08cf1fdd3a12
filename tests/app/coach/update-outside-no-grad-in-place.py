# An in-place update of a parameter while autograd records.
import torch

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (w * x).sum() ** 2
loss.backward()
w -= 0.1 * w.grad
print(w)
