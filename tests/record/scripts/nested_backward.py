# A backward call inside a hook of another (grad mode is off in a hook, so
# it turns it on): the inner call is a backward call of its own, and ends
# first.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)


def inner(grad):
    with torch.enable_grad():
        a = torch.tensor(3.0, requires_grad=True)
        (g,) = torch.autograd.grad(a * a, a)
    return grad * g


y = x * x
y.register_hook(inner)
y.sum().backward()
print(x.grad)
