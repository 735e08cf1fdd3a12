import torch

# A tensor's hooks stay on the grad_fn it had at its first register_hook, as
# PyTorch 1.13's dict does: after an in-place op they still run there, later
# hooks join them, and handle.remove() still removes.
x = torch.ones(2, requires_grad=True)
y = x * 2
h1 = y.register_hook(lambda g: print("h1", g) or g * 10)
y.mul_(3)
h2 = y.register_hook(lambda g: print("h2", g) or g + 1)
y.sum().backward(retain_graph=True)
print(x.grad)
h1.remove()
x.grad = None
y.sum().backward()
print(x.grad)

x = torch.ones(2, requires_grad=True)
y = x * 2
y.mul_(3)
h3 = y.register_hook(lambda g: print("h3", g) or g * 10)
y.sum().backward()
print(x.grad)
