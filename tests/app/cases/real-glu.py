# F.glu and nn.GLU: the first half gated by σ of the second, GluBackward0,
# gradients of first and second order, and PyTorch's errors.
import torch
import torch.nn.functional as F
from torch import nn

x = torch.tensor([[1., 2., -1., 0.5], [0., -3., 2., 1.5]], requires_grad=True)
y = F.glu(x)
print(y, y.grad_fn, y.grad_fn._saved_self is x)
z = F.glu(x, 0)
print(z, z.grad_fn._saved_dim)
(y.sum() + (z * z).sum()).backward()
print(x.grad)

g, = torch.autograd.grad((F.glu(x, 1) ** 2).sum(), x, create_graph=True)
print(g.detach(), g.requires_grad)  # PyTorch's node here is GluBackwardBackward0; ours, the ops'
print(torch.autograd.grad(g.sum(), x)[0])

layer = nn.GLU(dim=0)
print(layer, nn.GLU())
print(layer(torch.arange(4.)))
gated = nn.Sequential(nn.Linear(3, 4), nn.GLU())
torch.manual_seed(0)
gated[0].reset_parameters()
out = gated(torch.ones(2, 3))
print(out)
out.sum().backward()
print(gated[0].weight.grad)

for f in [lambda: F.glu(torch.randn(2, 3)), lambda: F.glu(torch.tensor(1.)),
          lambda: F.glu(torch.randn(2, 4), 2)]:
    try:
        print(f())
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
