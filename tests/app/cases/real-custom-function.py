import torch
from torch.autograd import Function, gradcheck

class StraightThroughRound(Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

class MyLinear(Function):
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

class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = torch.sort(x)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g, g_idx):
        idx, = ctx.saved_tensors
        grad = torch.zeros_like(g)
        grad.index_add_(0, idx, g)
        return grad

torch.manual_seed(0)
x = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
w = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
b = torch.randn(2, dtype=torch.double, requires_grad=True)
print(gradcheck(MyLinear.apply, (x, w, b), eps=1e-6, atol=1e-4))
out = MyLinear.apply(x, w, b)
print(out.grad_fn, out.grad_fn.next_functions)
out.sum().backward()
print(x.grad, b.grad)

y = torch.tensor([0.2, 1.7, -0.6], requires_grad=True)
r = StraightThroughRound.apply(y * 2)
(r * torch.tensor([1., 2., 3.])).sum().backward()
print(r, y.grad)

z = torch.tensor([0.5, -1.0], requires_grad=True)
e = Exp.apply(z)
g, = torch.autograd.grad(e.sum(), z, create_graph=True)
print(e, g)

s = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
vals, idx = SortWithIndex.apply(s)
print(vals, idx, idx.requires_grad)
(vals * torch.tensor([10., 20., 30.])).sum().backward()
print(s.grad)
print(type(out.grad_fn).__name__, torch.autograd.function.Function is torch.autograd.Function)
from torch.autograd.function import once_differentiable

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print('in backward, grad enabled:', torch.is_grad_enabled())
        return 3 * x ** 2 * g

c = torch.tensor([1.0, 2.0], requires_grad=True)
Cube.apply(c).sum().backward()
print(c.grad)
