# register_hook on a leaf and a non-leaf, a hook returning None, handle.remove().
import torch
x = torch.tensor([1., 2.], requires_grad=True)
h = x.register_hook(lambda g: g * 10)
print(h)
(x * 1).sum().backward()
print(x.grad)
h.remove()
(x * 1).sum().backward()
print(x.grad)
def show(g):
    print("hook", g)
x.register_hook(show)
(x * 3).sum().backward()
a = x * 2
a.register_hook(lambda g: g + 100)
a.sum().backward()
print(x.grad)
