import torch
from torch.autograd import gradcheck


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b, grad_output * b


x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
y = torch.tensor([3.0, -1.0], dtype=torch.float64, requires_grad=True)
print("x", "ok" if gradcheck(lambda v: Mul.apply(v, y).sum(), (x,), raise_exception=False) else "DIFFERS")
print("y", "ok" if gradcheck(lambda v: Mul.apply(x, v).sum(), (y,), raise_exception=False) else "DIFFERS")
