# A tensor made under torch.inference_mode() may be used in autograd outside
# it, but not saved for backward: PyTorch refuses as the op runs, whether
# the op is an operator, a torch function or a module's; a clone is fine.
import torch
from torch import nn

torch.manual_seed(0)
with torch.inference_mode():
    t = torch.ones(3) * 2
    feats = torch.randn(2, 3)
x = torch.tensor([0.5, -1., 2.], requires_grad=True)
print(t.is_inference(), t.requires_grad)

print(x + t, t - x)
print(torch.where(t > 1, x, t))
for f in [lambda: x * t, lambda: t * x, lambda: torch.mul(x, t), lambda: x / t,
          lambda: torch.tanh(x) * t, lambda: torch.mm(x.view(1, 3), t.view(3, 1)),
          lambda: x @ t, lambda: x.clone().mul_(t), lambda: nn.Linear(3, 2)(feats).sum().backward()]:
    try:
        print(f())
    except RuntimeError as e:
        print(e)

y = (x * t.clone()).sum()
y.backward()
print(y, x.grad)
with torch.inference_mode():
    print(x * t)
lin = nn.Linear(3, 1)
out = lin(feats.clone()).sum()
out.backward()
print(lin.weight.grad)
