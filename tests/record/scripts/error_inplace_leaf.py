# A gradient step outside torch.no_grad(): the in-place update of a leaf
# fails, and the error names the leaf and what it was changed by.
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
lr = 0.1
w -= lr * w.grad  # record: operands=w,(lr * w.grad)
