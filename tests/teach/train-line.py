# Fitting a line y = w·x + b with torch.optim.Adam: the Training page's
# screenshot in the README (the loss curve, w and b over their updates, and
# an Adam step told with its numbers).
import torch

x = torch.tensor([0.0, 1.0, 2.0, 3.0])
y = torch.tensor([1.0, 3.1, 4.9, 7.2])
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
optimizer = torch.optim.Adam([w, b], lr=0.3)

for step in range(30):
    loss = ((w * x + b - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"w = {w.item():.3f}, b = {b.item():.3f}, loss = {loss.item():.4f}")
