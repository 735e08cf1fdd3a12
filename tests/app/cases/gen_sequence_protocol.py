import torch
from torch.utils.data import TensorDataset
class D:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError("end")
        return i * i
print(list(D()), [x for x in D()], 4 in D(), sum(D()))
it = iter(D())
print(repr(it)[:len("<iterator object")], next(it), list(it))
ds = TensorDataset(torch.arange(3.0), torch.tensor([0, 1, 0]))
for x, y in ds:
    print(x, y)
class Old:
    def __getitem__(self, i):
        if i == 2:
            raise StopIteration
        return "ab"[i]
print(list(Old()))
