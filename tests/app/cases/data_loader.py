# torch.utils.data.DataLoader as PyTorch 1.13 iterates it: the shuffle order
# from the seeded global generator (each pass draws the loader's base seed,
# then the sampler's), drop_last, len(), batch_size=None, several epochs, a
# generator= of its own, and what the order leaves the global generator at.
import torch
from torch.utils.data import DataLoader, TensorDataset

X = torch.arange(46.).reshape(23, 2)
y = torch.arange(23)
ds = TensorDataset(X, y)
print(len(ds), ds[3], ds[-1][1])
for kw in [dict(batch_size=5, shuffle=True), dict(batch_size=5, shuffle=True, drop_last=True),
           dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None),
           dict(batch_size=30, shuffle=True), dict()]:
    torch.manual_seed(0)
    loader = DataLoader(ds, **kw)
    print(kw, len(loader))
    for epoch in range(2):
        batches = [[t.tolist() for t in batch] for batch in loader]
        print(len(batches), batches[0], batches[-1])
        print([b[1] for b in batches])
    print(torch.rand(2))

g = torch.Generator()
g.manual_seed(5)
torch.manual_seed(3)
loader = DataLoader(ds, batch_size=6, shuffle=True, generator=g)
for xb, yb in loader:
    print(xb.shape, yb)
print(torch.rand(1), g.initial_seed())

it = iter(DataLoader(ds, batch_size=10))
print(len(it), next(it)[1], next(it)[1], next(it)[1])
try:
    next(it)
except StopIteration:
    print('StopIteration')
for i, (xb, yb) in enumerate(DataLoader(ds, batch_size=8)):
    print(i, xb.dtype, yb.dtype, xb.shape, yb.shape)
