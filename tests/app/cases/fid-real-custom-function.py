# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
from torch.autograd import Function

class MyReLU(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input

class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias

relu = MyReLU.apply
x = torch.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
y = relu(x)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
w = torch.tensor([[0.5, -0.5], [1.0, 2.0], [0.0, 1.0]], requires_grad=True)
b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
out = LinearFunction.apply(x, w, b)
print(out)
out.pow(2).sum().backward()
print(w.grad)
print(b.grad)
from torch.autograd import gradcheck
inp = (torch.randn(3, 2, dtype=torch.double, requires_grad=True),
       torch.randn(4, 2, dtype=torch.double, requires_grad=True))
print(gradcheck(LinearFunction.apply, inp, eps=1e-6, atol=1e-4))
