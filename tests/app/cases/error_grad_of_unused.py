# autograd.grad for an input that the output does not depend on fails unless
# allow_unused=True.
import torch
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = x * 3
print(torch.autograd.grad(z, [x, y], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(z, [x, y]))
