# cuda: cpu-only, the type error names the CPU tensor types ("torch.FloatTensor")
# A hook may replace a gradient, but not change its size, dtype or device:
# PyTorch names the hook in its error.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
q = x * 3
h = q.register_hook(lambda g: g.double())
try:
    q.sum().backward(retain_graph=True)
except RuntimeError as e:
    print(e)
h.remove()


class Shrink:
    def __call__(self, g):
        return torch.ones(2)


h = q.register_hook(Shrink())
try:
    q.sum().backward(retain_graph=True)
except RuntimeError as e:
    print(e)
h.remove()


def same(g):
    return g * 2


q.register_hook(same)
q.sum().backward()
print(x.grad)


def short(g):
    return g[:1]


x.register_hook(short)
(x * 2).sum().backward()
