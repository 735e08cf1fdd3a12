import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)
data = torch.rand(40, 12)
loader = DataLoader(TensorDataset(data), batch_size=10, shuffle=True,
                    generator=torch.Generator().manual_seed(0))

class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(12, 6), nn.ReLU(), nn.Linear(6, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 12), nn.Sigmoid())

    def forward(self, x):
        z = self.encoder(x)
        return self.decoder(z), z

model = AutoEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()
history = []
for epoch in range(5):
    total = 0.0
    for (batch,) in loader:
        recon, z = model(batch)
        loss = loss_fn(recon, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    history.append(total / len(loader))
    print('Epoch [{}/{}], Loss: {:.6f}'.format(epoch + 1, 5, history[-1]))
with torch.no_grad():
    recon, z = model(data[:2])
    print(z)
    print(torch.round(recon * 100) / 100)
print(len(loader), len(loader.dataset), min(history) == history[-1])
