# A second backward through a graph the first one freed.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w.exp() * w).sum()
loss.backward()
print(w.grad)
loss.backward()
print(w.grad)
