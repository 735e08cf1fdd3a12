# ctx.mark_dirty: a custom Function that changes its input in place returns it with new history
import torch

class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2

a = torch.zeros(2, requires_grad=True)
b = a.clone()
c = AddOne.apply(b)
print(c is b, b.grad_fn, c.grad_fn.next_functions, b._version)
(c * torch.tensor([1., 3.])).sum().backward()
print(b, a.grad)
try:
    AddOne.apply(torch.zeros(2, requires_grad=True))
except RuntimeError as e:
    print(e)
