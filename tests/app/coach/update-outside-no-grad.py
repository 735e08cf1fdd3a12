# A manual update without torch.no_grad(): w becomes the output of an op,
# a non-leaf, and its .grad is None after the next backward.
import torch

x = torch.tensor([1.0, 2.0, 3.0])
w = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
lr = 0.1
for step in range(2):
    loss = ((w * x).sum() - 2) ** 2
    loss.backward()
    print(step, loss.item(), w.grad)
    w = w - lr * w.grad
