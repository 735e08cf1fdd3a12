import torch.nn as nn
layers = nn.ModuleList([nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 3)])
print([type(m).__name__ for m in reversed(layers)])
seq = nn.Sequential(nn.Linear(1, 1), nn.Tanh())
print([type(m).__name__ for m in reversed(seq)])
class R:
    def __reversed__(self):
        yield from "zyx"
print(list(reversed(R())))
class S:
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return i * 10
print(list(reversed(S())))
try:
    reversed(object())
except TypeError as e:
    print(e)
