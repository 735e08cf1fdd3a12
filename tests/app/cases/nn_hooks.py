import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 2)


def pre_hook(module, inputs):
    print('pre', type(module).__name__, [tuple(i.shape) for i in inputs])


def fwd_hook(module, inputs, output):
    print('fwd', type(module).__name__, tuple(output.shape))
    return output * 2


def bwd_hook(module, grad_input, grad_output):
    print('bwd', type(module).__name__, [None if g is None else tuple(g.shape) for g in grad_input],
          [tuple(g.shape) for g in grad_output])
    print(grad_output[0])


h1 = lin.register_forward_pre_hook(pre_hook)
h2 = lin.register_forward_hook(fwd_hook)
h3 = lin.register_full_backward_hook(bwd_hook)
x = torch.randn(4, 3)
y = lin(x)
print(y)
y.sum().backward()
print(lin.weight.grad)
x2 = torch.randn(4, 3, requires_grad=True)
z = lin(x2)
z.pow(2).sum().backward()
print(x2.grad)
h1.remove()
h2.remove()
h3.remove()
out = lin(x)
print(out)


def replace_grad(module, grad_input, grad_output):
    return (grad_input[0] * 0,)


seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
seq[1].register_full_backward_hook(replace_grad)
a = torch.randn(2, 3, requires_grad=True)
seq(a).sum().backward()
print(seq[0].weight.grad)
print(a.grad)
