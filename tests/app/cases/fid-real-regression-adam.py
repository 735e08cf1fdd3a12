# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
torch.manual_seed(123)
X = torch.linspace(-1, 1, 20).unsqueeze(1)
Y = 3 * X ** 2 + 0.5 * X - 1 + 0.05 * torch.randn(X.size())
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
losses = []
for epoch in range(30):
    pred = model(X)
    loss = loss_fn(pred, Y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    if epoch % 10 == 9:
        print('epoch {:3d} loss {:.5f}'.format(epoch + 1, loss.item()))
print(len(losses), min(losses) < losses[0])
model.eval()
with torch.no_grad():
    test = torch.tensor([[0.0], [0.5]])
    print(model(test))
print(optimizer)
