# Several roots: the same tensor given twice, and a leaf given twice. Their
# gradients add up before any step runs; a hook on the tensor sees the sum.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2


def show(g):
    return g * 10


y.register_hook(show)
z = y.sum()
torch.autograd.backward([y, y, z], [torch.ones(3), torch.full((3,), 3.0), torch.tensor(0.5)])
w = torch.tensor([1.0, -1.0], requires_grad=True)
v = w * w
torch.autograd.backward([v, v, w], [torch.ones(2), torch.full((2,), 2.0), torch.ones(2) * 4])
print(x.grad, w.grad)
