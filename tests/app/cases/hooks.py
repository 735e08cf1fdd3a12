# Tensor hooks: a hook sees the gradient reaching its tensor and may return a
# replacement; several hooks run in order; handle.remove() takes one away.
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
z = (y * y).sum()
log = []


def record(grad):
    log.append(grad.tolist())


def double(grad):
    return grad * 2


y.register_hook(record)
y.register_hook(double)
h = x.register_hook(lambda g: print("x hook got", g))
z.backward()
print(log)
print(x.grad)

h.remove()
x.grad.zero_()
(x * x).sum().backward()
print(x.grad)
