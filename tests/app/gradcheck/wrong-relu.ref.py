import torch
from torch.autograd import gradcheck


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clone()


x = torch.tensor([-2.0, -0.5, 0.5, 3.0], dtype=torch.float64, requires_grad=True)
print("x", "ok" if gradcheck(lambda v: (MyReLU.apply(v) * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum(), (x,), raise_exception=False) else "DIFFERS")
