# torch.autograd.grad: gradients returned, not accumulated into .grad.
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
(gx,) = torch.autograd.grad(y, x)
print(gx, x.grad)
