import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader, random_split

torch.manual_seed(11)

class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.linspace(-1, 1, n).unsqueeze(1)
        self.y = self.x ** 2
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i], self.y[i]

ds = Squares(20)
train_ds, val_ds = random_split(ds, [15, 5], generator=torch.Generator().manual_seed(42))
print(len(train_ds), len(val_ds), val_ds.indices if hasattr(val_ds, 'indices') else None)
loader = DataLoader(train_ds, batch_size=4, shuffle=False, drop_last=True)
net = nn.Sequential(nn.Linear(1, 8), nn.SiLU(), nn.Linear(8, 1))
def init(m):
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight, nonlinearity='relu')
        nn.init.constant_(m.bias, 0.01)
net.apply(init)
feats = {}
def hook(module, inp, out):
    feats['hidden'] = out.detach()
h = net[1].register_forward_hook(hook)
opt = torch.optim.Adagrad(net.parameters(), lr=0.1)
for epoch in range(3):
    for xb, yb in loader:
        loss = F.smooth_l1_loss(net(xb), yb, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, f"{loss.item():.5f}", feats['hidden'].shape)
h.remove()
net(torch.zeros(2, 1))
print(feats['hidden'].shape)
labels = torch.tensor([0, 2, 1])
oh = F.one_hot(labels, num_classes=4).float()
print(oh, oh.argmax(1).eq(labels).all().item())
print(torch.stack([p.grad.norm() for p in net.parameters()]))
print([n for n, m in net.named_modules()], net[0].weight.std().item() > 0)
print(F.normalize(torch.tensor([[3.0, 4.0]]), dim=1), F.cosine_similarity(torch.ones(2, 3), torch.arange(6.).view(2, 3)))
