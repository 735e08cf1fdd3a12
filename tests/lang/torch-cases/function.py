# torch.autograd.Function with ctx.save_for_backward, ctx attributes,
# needs_input_grad, the custom node's repr/name/next_functions, several outputs.
import torch
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        print("needs", ctx.needs_input_grad, torch.is_grad_enabled())
        return x.clamp(min=0) * k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print("backward", ctx.k)
        return g * (x > 0).float() * ctx.k, None
x = torch.tensor([-1., 2.], requires_grad=True)
y = MyReLU.apply(x, 3)
print(y)
print(y.grad_fn)
print(y.grad_fn.name(), y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)
w = MyReLU.apply(torch.tensor([1.]), 2)
print(w, w.grad_fn)
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        out = a * a
        ctx.save_for_backward(a, out)
        return out
    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        return 2 * a * g
s = Square.apply(x)
(s * 2).sum().backward()
print(x.grad)
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 3
p, q = Split.apply(x)
print(p.grad_fn, q.grad_fn.name())
(p + q).sum().backward()
print(x.grad)
