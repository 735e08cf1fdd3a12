import torch

# retain_grad and hooks that remove each other around it.
x = torch.ones(2, requires_grad=True)
y = x * 2
hs = []
def remove_all(g):
    for h in hs:
        h.remove()
    return g * 4
hs.append(y.register_hook(remove_all))
y.retain_grad()
hs.append(y.register_hook(lambda g: g + 100))
(y * 3).sum().backward()
print(y.grad, x.grad)

# A removed hook is gone for good.
z = torch.ones(2, requires_grad=True)
w = z.exp()
h = w.register_hook(lambda g: g * 0)
w.retain_grad()
h.remove()
w.sum().backward()
print(w.grad, z.grad)
# The tensor's hook list takes the place of its first register_hook among
# the grad_fn's pre-hooks: retain_grad before it sees the gradient unchanged,
# after it the gradient of every hook of the list, even later ones.
x = torch.ones(2, requires_grad=True)
y = x * 2
y.retain_grad()
y.register_hook(lambda g: g * 5)
y.sum().backward()
print(y.grad, x.grad)

x = torch.ones(2, requires_grad=True)
y = x * 2
y.register_hook(lambda g: g * 5)
y.retain_grad()
y.register_hook(lambda g: g + 1)
y.sum().backward()
print(y.grad, x.grad)

# retain_grad called by a hook during backward counts from the next backward.
x = torch.ones(2, requires_grad=True)
y = x * 2
def late(g):
    y.retain_grad()
    return g * 3
y.register_hook(late)
y.sum().backward()
print(y.grad, x.grad)
