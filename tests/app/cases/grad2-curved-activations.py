# gelu (both approximations), logsigmoid and hardswish: the gradient of their
# gradient goes through GeluBackwardBackward0, LogSigmoidBackwardBackward0 and
# HardswishBackwardBackward0, in x and in the incoming gradient, with
# PyTorch's values; a third derivative too.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.tensor([[-4.0, -3.0, -1.5, 0.0], [0.5, 2.0, 3.0, 5.0]], requires_grad=True)
w = torch.arange(8.).reshape(2, 4) - 3
for name, f in [("gelu", F.gelu), ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
                ("logsigmoid", F.logsigmoid), ("hardswish", F.hardswish)]:
    v = torch.randn(2, 4, requires_grad=True)
    g, = torch.autograd.grad(f(x), x, v, create_graph=True)
    print(name, g.grad_fn.name(), [type(n).__name__ for n, _ in g.grad_fn.next_functions])
    print(g)
    gx, gv = torch.autograd.grad((g * w).sum(), (x, v), create_graph=True)
    print(gx, gv)
    if gx.grad_fn is not None:
        print(gx.grad_fn.name(), torch.autograd.grad(gx.sum(), x, allow_unused=True))
xd = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
for f in [F.gelu, lambda t: F.gelu(t, approximate="tanh"), F.logsigmoid]:
    print(torch.autograd.gradgradcheck(f, (xd,)))
