import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 3))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)
        nn.init.zeros_(m.bias)


net.apply(init_weights)
print(net[1].weight.data[0])
X = torch.randn(5, 4, 4)
y = torch.tensor([0, 2, 1, 1, 0])
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(3):
    net.train()
    l = loss(net(X), y)
    trainer.zero_grad()
    l.mean().backward()
    total = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.05)
    trainer.step()
    print(epoch, l.mean().item() > 0, round(float(total), 4))
net.eval()
with torch.no_grad():
    print(net(X).argmax(dim=1))
print([type(m).__name__ for m in list(net.modules())[1:]])
print(isinstance(net[1], (nn.Conv2d, nn.Linear)), net[3].training)
net.zero_grad(set_to_none=True)
print(net[1].weight.grad)
w = torch.empty(3, 4)
nn.init.trunc_normal_(w, std=0.02)
print(w.abs().max() <= 0.04)
torch.nn.utils.clip_grad_value_(net.parameters(), 0.1)
vec = torch.nn.utils.parameters_to_vector(net.parameters())
print(vec.shape)
