# type(grad_fn) is the node's own class, as PyTorch's: its __name__ is
# 'MulBackward0', 'AccumulateGrad', 'SquareBackward' (was 'grad_fn').
import torch
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
g = y.grad_fn
print(type(g).__name__, type(g))
print(type(g.next_functions[0][0]).__name__)
print(type(x.grad_fn).__name__)
acc = g.next_functions[0][0].next_functions[0][0]
print(type(acc).__name__, type(acc))
print(type(g) is type(y.grad_fn), type(g) is type(acc))
print(isinstance(g, type(y.grad_fn)))
try:
    g.foo
except AttributeError as e:
    print("AttributeError:", e)
print(type(g).__qualname__)

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
z = Square.apply(x)
print(type(z.grad_fn).__name__, z.grad_fn.name())
names = []
def walk(fn):
    if fn is None:
        return
    names.append(type(fn).__name__)
    for nxt, _ in fn.next_functions:
        walk(nxt)
walk((z.sum() + y).grad_fn)
print(names)
