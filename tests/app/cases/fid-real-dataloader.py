# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
from torch.utils.data import TensorDataset, DataLoader, Dataset, random_split
torch.manual_seed(0)
X = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10) % 2
ds = TensorDataset(X, y)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4, shuffle=False)
for xb, yb in loader:
    print(xb.shape, yb)
loader = DataLoader(ds, batch_size=4, shuffle=True)
for i, (xb, yb) in enumerate(loader):
    print(i, yb)
class Squares(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor([float(i)]), torch.tensor([float(i * i)])
dl = DataLoader(Squares(5), batch_size=2)
print([b[1].view(-1).tolist() for b in dl])
train, val = random_split(ds, [8, 2])
print(len(train), len(val))
print(len(loader), next(iter(dl))[0].shape)
