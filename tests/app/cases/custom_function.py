# A custom autograd.Function with two tensor inputs and a Python number:
# ctx.save_for_backward, extra ctx attributes, and None for the number's gradient.
import torch


class ScaledProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, k):
        ctx.save_for_backward(a, b)
        ctx.k = k
        return a * b * k

    @staticmethod
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        return grad_out * b * ctx.k, grad_out * a * ctx.k, None


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, -1.0], requires_grad=True)
out = ScaledProduct.apply(a, b, 0.5)
print(out)
r = Square.apply(out).sum()
print(r)
r.backward()
print(a.grad, b.grad)
