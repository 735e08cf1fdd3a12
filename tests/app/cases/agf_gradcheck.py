# torch.autograd.gradcheck / gradgradcheck with PyTorch 1.13's defaults
# (eps=1e-6, atol=1e-5, rtol=1e-3): passes for correct backward formulas,
# a custom Function with a wrong backward fails with the Jacobian mismatch
# message (or False with raise_exception=False), and the input checks.
import torch
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)
a = torch.randn(3, 2, dtype=torch.double, requires_grad=True)
b = torch.randn(2, 4, dtype=torch.double, requires_grad=True)
print(gradcheck(torch.matmul, (a, b)))
print(gradcheck(lambda u: (u.tanh() * u.exp()).sum(dim=1), (a,)))
print(gradcheck(lambda u, v: (u @ v, u.sum()), (a, b)))
print(gradcheck(torch.sigmoid, a, eps=1e-4, atol=1e-4))
print(gradgradcheck(lambda u: (u ** 3).sin(), (a,)))
print(gradgradcheck(torch.matmul, (a, b)))
print(a.grad, b.grad)


class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x


x = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
print(gradcheck(WrongSquare.apply, (x,), raise_exception=False))
try:
    gradcheck(WrongSquare.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__)
    print(e)
try:
    gradcheck(torch.sin, (torch.ones(2, dtype=torch.double),))
except ValueError as e:
    print(e)
try:
    gradcheck(lambda u: u.detach() * 2, (x,))
except RuntimeError as e:
    print(type(e).__name__, e)
print(gradcheck(lambda u: u.detach() * 0, (x,)))
print(gradcheck(lambda u, k: u * k, (x, 3.0)))
