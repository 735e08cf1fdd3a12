# x.max(dim) and friends return torch.return_types.NAME, a named tuple.
import torch
x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
r = x.max(1)
print(isinstance(r, tuple), type(r).__name__, len(r))
print(type(r))
print(isinstance(x.min(0), tuple), type(x.min(0)).__name__)
print(isinstance(torch.sort(x), tuple), type(torch.sort(x)).__name__, type(x.topk(2)).__name__)
values, indices = r
print(values, indices, r[0].equal(r.values), r[1].equal(r.indices))
print(isinstance(x, tuple), isinstance((1, 2), tuple), isinstance(r, (list, tuple)))
