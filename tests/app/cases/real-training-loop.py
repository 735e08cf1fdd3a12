import copy
import torch
import torch.nn as nn

torch.manual_seed(123)
N, D = 64, 5
X = torch.randn(N, D)
true_w = torch.tensor([1.5, -2.0, 0.5, 0.0, 3.0])
y = X @ true_w + 0.1 * torch.randn(N)
train_X, val_X = X[:48], X[48:]
train_y, val_y = y[:48], y[48:]

model = nn.Sequential(nn.Linear(D, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD([
    {'params': model[0].parameters(), 'lr': 0.05},
    {'params': model[2].parameters()},
], lr=0.02, momentum=0.9, nesterov=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6, eta_min=1e-3)
loss_fn = nn.MSELoss(reduction='mean')
best_loss, best_state, patience = float('inf'), None, 0
batch_size = 16
for epoch in range(6):
    perm = torch.randperm(train_X.size(0))
    epoch_loss = 0.0
    for start in range(0, train_X.size(0), batch_size):
        idx = perm[start:start + batch_size]
        xb, yb = train_X[idx], train_y[idx]
        pred = model(xb).squeeze(-1)
        loss = loss_fn(pred, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * len(idx)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        val_loss = loss_fn(model(val_X).squeeze(-1), val_y).item()
    model.train()
    lrs = [round(g['lr'], 6) for g in optimizer.param_groups]
    print(f"{epoch:2d} train={epoch_loss / 48:8.4f} val={val_loss:8.4f} lrs={lrs}")
    if val_loss < best_loss:
        best_loss, best_state, patience = val_loss, copy.deepcopy(model.state_dict()), 0
    else:
        patience += 1
print(list(best_state.keys()))
model.load_state_dict(best_state)
with torch.no_grad():
    print(round(loss_fn(model(val_X).squeeze(-1), val_y).item(), 4) == round(best_loss, 4))
print(optimizer.state_dict()['param_groups'][0]['nesterov'], len(optimizer.state_dict()['state']))
print(scheduler.state_dict()['last_epoch'], scheduler.get_last_lr())
