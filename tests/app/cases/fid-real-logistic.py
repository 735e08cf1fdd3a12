# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
torch.manual_seed(2)
N = 20
X = torch.cat([torch.randn(N // 2, 2) + 2, torch.randn(N // 2, 2) - 2])
y = torch.cat([torch.ones(N // 2), torch.zeros(N // 2)]).unsqueeze(1)
perm = torch.randperm(N)
X, y = X[perm], y[perm]
model = nn.Linear(2, 1)
criterion = nn.BCELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batch_size = 5
for epoch in range(3):
    running = 0.0
    for i in range(0, N, batch_size):
        xb, yb = X[i:i + batch_size], y[i:i + batch_size]
        p = torch.sigmoid(model(xb))
        loss = criterion(p, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item() * xb.size(0)
    print(f"epoch {epoch}: {running / N:.4f}")
with torch.no_grad():
    pred = (torch.sigmoid(model(X)) > 0.5).float()
    print((pred == y).sum().item(), "/", N)
print(model.weight.data, model.bias.data)
print(nn.BCEWithLogitsLoss()(model(X), y))
print(model.state_dict())
