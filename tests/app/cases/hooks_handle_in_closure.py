import torch

# A hook whose function refers to its own handle: the handle holds no tensor
# (PyTorch's holds a weakref), so this is no reference cycle, and remove()
# still works after the tensor itself is gone.
x = torch.ones(2, requires_grad=True)

def make():
    y = x * 2
    handle = None
    def hook(g):
        print("hook, handle id is an int:", isinstance(handle.id, int))
        return g * 3
    handle = y.register_hook(hook)
    return y, handle

y, handle = make()
y.sum().backward(retain_graph=True)
print(x.grad)

s = y.sum()
del y
handle.remove()
handle.remove()
s.backward()
print(x.grad)

once = []
z = x * 5
once.append(z.register_hook(lambda g: once[0].remove() or g * 100))
z.sum().backward(retain_graph=True)
z.sum().backward()
print(x.grad)
