# torch.utils.data as PyTorch 1.13 builds batches and splits: default_collate
# of tensors, ints (int64), floats (float64), bools, strings, tuples (lists
# out), lists and dicts; a custom collate_fn; a map-style Dataset subclass;
# random_split by lengths and by fractions with a generator; Subset,
# ConcatDataset (Dataset + Dataset); the samplers and BatchSampler; errors.
import torch
from torch.utils.data import (DataLoader, Dataset, TensorDataset, Subset, ConcatDataset,
                              random_split, SequentialSampler, RandomSampler, BatchSampler,
                              default_collate)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {'x': torch.tensor([float(i), float(i * i)]), 'i': i, 'f': i / 4,
                'ok': i % 2 == 0, 'name': 'item%d' % i, 'pair': (i, [i + 1, i + 2])}


torch.manual_seed(0)
ds = Squares(7)
for batch in DataLoader(ds, batch_size=3, shuffle=True):
    print(batch)
print(default_collate([(1, 2.5), (3, 4.5)]))
print(default_collate([[torch.ones(2), 0], [torch.zeros(2), 1]]))
loader = DataLoader(ds, batch_size=4, collate_fn=lambda items: [it['i'] for it in items])
print(list(loader), len(loader))

torch.manual_seed(1)
train, val = random_split(range(10), [7, 3])
print(type(train).__name__, len(train), len(val), list(train), list(val), val[0])
parts = random_split(range(30), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))
print([p.indices for p in parts])
parts = random_split(TensorDataset(torch.arange(11)), [0.5, 0.5],
                     generator=torch.Generator().manual_seed(3))
print([len(p) for p in parts], parts[0][0], parts[1].indices)
try:
    random_split(range(10), [3, 3])
except ValueError as e:
    print(e)
sub = Subset(TensorDataset(torch.arange(10) * 10), [9, 0, 4])
print(len(sub), sub[0], sub[2], [b for b in DataLoader(sub, batch_size=2)])
cat = TensorDataset(torch.arange(3)) + TensorDataset(torch.arange(100, 104))
print(type(cat).__name__, len(cat), cat[2], cat[3], cat[-1], cat.cumulative_sizes)

print(list(SequentialSampler(range(4))))
torch.manual_seed(2)
print(list(RandomSampler(range(6))), list(RandomSampler(range(6))))
print(list(RandomSampler(range(5), replacement=True, num_samples=8)))
print(list(RandomSampler(range(4), num_samples=10)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(range(10), batch_size=3, drop_last=True)), len(BatchSampler(range(10), 3, True)))
sampler = BatchSampler(RandomSampler(range(9), generator=torch.Generator().manual_seed(7)), 4, False)
print([b for b in DataLoader(TensorDataset(torch.arange(9)), batch_sampler=sampler)])
print([b for b in DataLoader(TensorDataset(torch.arange(5)), sampler=[4, 3, 0], batch_size=2)])
for bad in [lambda: DataLoader(ds, sampler=[0], shuffle=True),
            lambda: DataLoader(ds, batch_sampler=[[0]], batch_size=2),
            lambda: DataLoader(ds, batch_size=None, drop_last=True),
            lambda: BatchSampler(range(3), 0, False),
            lambda: RandomSampler(range(3), num_samples=0),
            lambda: default_collate([object])]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
