import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
def steps(n):
    for i in range(n):
        x = torch.randn(2, 1, 8, 8)
        y = torch.tensor([0, 2])
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        yield i, loss.item()
for i, l in steps(3):
    print(i, round(l, 4))
big = (torch.randn(64, 64) @ torch.randn(64, 64) for _ in range(3))
print([t.shape for t in big])
