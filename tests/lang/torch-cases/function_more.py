# torch.autograd.Function: saving an output, non-tensor arguments, chained applies,
# apply under no_grad, a forward that returns its input.
import torch
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result
x = torch.tensor([0., 1.], requires_grad=True)
y = Exp.apply(x)
print(y, y.grad_fn, y.requires_grad, y.is_leaf)
y.sum().backward()
print(x.grad)
class MulConst(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, c):
        ctx.c = c
        return t * c
    @staticmethod
    def backward(ctx, g):
        return g * ctx.c, None
z = MulConst.apply(x, 5.)
w = MulConst.apply(z, 2.)
w.sum().backward()
print(x.grad, w.grad_fn.next_functions)
with torch.no_grad():
    q = Exp.apply(x)
print(q.requires_grad, q.grad_fn)
class Ident(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t
    @staticmethod
    def backward(ctx, g):
        return g * 3
p = Ident.apply(x)
print(p, x.is_leaf, x.grad_fn, p.grad_fn)
p.sum().backward()
print(x.grad)
