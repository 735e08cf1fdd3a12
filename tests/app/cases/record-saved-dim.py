# _saved_dim(s) and _saved_keepdim of the ops that keep a dim, given non-negative
# (a negative dim: PyTorch shows 2**64 + dim, see cr-torch-saved.c's header)
import torch
x = torch.randn(2, 3, requires_grad=True)
for name, t in [('cat', torch.cat([x, x], dim=1)), ('stack', torch.stack([x, x], dim=2)),
                ('split', x.split(1, dim=1)[0]), ('split_sizes', x.split([1, 2], dim=1)[0]),
                ('unbind', x.unbind(1)[0]), ('prod', x.prod(1)), ('prodk', x.prod(0, keepdim=True)),
                ('flip', x.flip(1)), ('flip01', x.flip(0, 1)), ('softmax', x.softmax(1)),
                ('sum', x.sum(1)), ('cumsum', x.cumsum(1)), ('unsqueeze', x.unsqueeze(2)),
                ('gather', x.gather(1, torch.zeros(2, 1, dtype=torch.long))),
                ('sort', x.sort(1)[0]), ('max', x.max(1)[0])]:
    fn = t.grad_fn
    print(name, fn.name(), [(a, getattr(fn, a)) for a in ('_saved_dim', '_saved_dims', '_saved_keepdim') if hasattr(fn, a)])
p = x.prod(1)
print(torch.equal(p.grad_fn._saved_self, x), torch.equal(p.grad_fn._saved_result, p))
