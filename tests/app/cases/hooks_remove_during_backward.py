import torch

# Hooks that remove every handle while backward runs (a use after free once):
# the hooks of a tensor are called from a copy of its list, so all of y's run
# this time; x's are gone before x's turn.
x = torch.ones(3, requires_grad=True)
handles = []
def h(g):
    for hd in handles:
        hd.remove()
    return g * 10
handles.append(x.register_hook(h))
handles.append(x.register_hook(lambda g: g + 1))
y = (x * 2)
handles.append(y.register_hook(h))
handles.append(y.register_hook(lambda g: g * 3))
y.sum().backward()
print(x.grad)
