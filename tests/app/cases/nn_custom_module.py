import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, n, act=None):
        super().__init__()
        self.lin = nn.Linear(n, n, bias=False)
        self.act = act if act is not None else nn.Identity()
        self.scale = 2.0
        self.names = ['a', 'b']

    def forward(self, x, shift=0.0):
        return self.act(self.lin(x)) * self.scale + shift

    def extra_repr(self):
        return 'scale={}'.format(self.scale)


torch.manual_seed(0)
b = Block(3, nn.Tanh())
print(b)
print(str(b) == repr(b), f"{b.lin}")
x = torch.ones(2, 3)
print(b(x, shift=1.0))
print(b(x=x))
print(b.forward(x))
print(isinstance(b, nn.Module), type(b).__name__, b.__class__.__name__, b._get_name())
print(b.scale, b.names, hasattr(b, 'lin'), hasattr(b, 'nothing'))
print(getattr(b, 'act'), getattr(b, 'missing', 'default'))
b.scale = 3.0
print(b)
print(b.lin.weight.shape, b.lin.bias)
print([type(m).__name__ for m in b.modules()])
print(b.lin.__class__.__module__)
