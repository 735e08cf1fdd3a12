# keepdims=, numpy's spelling, is accepted wherever keepdim= is.
import torch
x = torch.arange(6.).reshape(2, 3)
for name in ["sum", "mean", "amax", "amin", "std", "var", "prod", "logsumexp", "argmax", "any", "all"]:
    print(name, getattr(x, name)(1, keepdims=True).shape, getattr(torch, name)(x, 0, keepdims=True).shape)
v, i = x.max(1, keepdims=True)
print(v, i)
print(torch.min(x, dim=0, keepdims=False))
