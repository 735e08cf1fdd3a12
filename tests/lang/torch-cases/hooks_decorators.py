# several hooks on a leaf, handle.remove() twice, hooks on non-leaf tensors and a 0-d
# loss, @torch.no_grad() and @torch.enable_grad() decorators, set_grad_enabled as a
# function.
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
hs = []
def hook(g):
    hs.append(g.clone())
    return g * 2
h1 = x.register_hook(hook)
h2 = x.register_hook(lambda g: g + 1)
(x ** 2).sum().backward()
print(x.grad, hs)
h1.remove()
h1.remove()
x.grad.zero_()
(x ** 2).sum().backward()
print(x.grad)
y = x * 3
y.register_hook(lambda g: print("y hook", g))
z = y.sum()
z.register_hook(lambda g: g * 10)
z.backward()
print(x.grad)
@torch.no_grad()
def update(p, lr):
    p -= lr * p.grad
    return p.requires_grad
print(update(x, 0.01), x)
@torch.enable_grad()
def f(t):
    return (t * 2).requires_grad
with torch.no_grad():
    print(f(x))
torch.set_grad_enabled(False)
print(torch.is_grad_enabled())
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
