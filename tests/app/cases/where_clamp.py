# torch.where picks from two tensors by a condition; clamp limits values. The
# gradient flows only to the chosen or unclamped elements.
import torch
x = torch.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
y = torch.where(x > 0, x * 3, x * x)
print(y)
print(y.grad_fn)
y.sum().backward()
print(x.grad)
x.grad = None
c = x.clamp(-1.0, 1.0)
print(c, c.grad_fn)
c.sum().backward()
print(x.grad)
print(torch.clamp(x, min=0))
print(x.clamp(max=0.0))
print(torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), torch.tensor([10, 20])))
