# A custom autograd.Function with two inputs and saved tensors; its own
# backward runs as the node's step.
import torch


class MulAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y + x

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * (y + 1), grad_output * x


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
z = MulAdd.apply(x, y)
loss = (z * z).sum()
loss.backward()
print(x.grad, y.grad)
