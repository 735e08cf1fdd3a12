# torch.autograd.grad of a non-scalar output needs grad_outputs, like backward.
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
print(torch.autograd.grad(y.sum(), x))
g = torch.autograd.grad(y, x)
