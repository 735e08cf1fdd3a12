# IterableDataset through a DataLoader (batches, drop_last, len of a sized
# one, the warning when it yields more than its len), ChainDataset (a + b),
# WeightedRandomSampler and SubsetRandomSampler with seeds, as PyTorch 1.13.
import torch
from torch.utils.data import (DataLoader, IterableDataset, ChainDataset, WeightedRandomSampler,
                              SubsetRandomSampler, TensorDataset)


class Count(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))

    def __len__(self):
        return self.end - self.start


print([b for b in DataLoader(Count(0, 7), batch_size=3)])
print([b for b in DataLoader(Count(0, 7), batch_size=3, drop_last=True)])
print([b for b in DataLoader(Count(0, 3), batch_size=None)])
print(len(DataLoader(Count(0, 7), batch_size=3)), len(DataLoader(Count(0, 7), batch_size=3, drop_last=True)))
chain = Count(0, 2) + Count(10, 13)
print(type(chain).__name__, list(chain), len(chain))
print([b for b in DataLoader(chain, batch_size=2)])
try:
    DataLoader(Count(0, 3), shuffle=True)
except ValueError as e:
    print(e)
torch.manual_seed(0)
s = WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 10)
print(list(s), len(s), s.weights.dtype)
print(list(WeightedRandomSampler(torch.tensor([1.0, 2.0, 3.0]), 3, replacement=False)))
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(1))))
ds = TensorDataset(torch.arange(10) * 2)
torch.manual_seed(5)
print([b[0].tolist() for b in DataLoader(ds, batch_size=3, sampler=WeightedRandomSampler(torch.ones(10), 7))])
print([b[0].tolist() for b in DataLoader(ds, batch_size=2, sampler=SubsetRandomSampler([1, 3, 5, 7, 9]))])
for bad in [lambda: WeightedRandomSampler([1.0], 0), lambda: WeightedRandomSampler([[1.0]], 2)]:
    try:
        bad()
    except ValueError as e:
        print(e)
# A DataLoader refuses new batch_size, sampler, ... once made, as PyTorch 1.13.
l = DataLoader(TensorDataset(torch.arange(4)), batch_size=2)
l.collate_fn = lambda b: len(b)
print(list(l))
try:
    l.batch_size = 3
except ValueError as e:
    print(e)
