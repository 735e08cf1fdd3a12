# retain_grad and register_hook on one tensor: in PyTorch 1.13 they run in
# the order they were registered, so y.grad is the gradient before the
# doubling hook and z.grad the one after it.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda grad: grad * 2)
z = x * 4
z.register_hook(lambda grad: grad * 2)
z.retain_grad()
(y * z).sum().backward()
print(y.grad, z.grad, x.grad)
