# A custom Function whose backward is wrong for one input only: the table
# names y, and x agrees.
import torch


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b, grad_output * b   # should be grad_output * a


x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
y = torch.tensor([3.0, -1.0], dtype=torch.float64, requires_grad=True)
loss = Mul.apply(x, y).sum()
loss.backward()
print(x.grad, y.grad)
