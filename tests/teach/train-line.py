# Fitting y = x·W + b (two lines at once) with torch.optim.Adam: the Training
# page's screenshots in the README (the loss curve, W and b over their
# updates, and an Adam step told with the numbers of the element picked).
import torch

x = torch.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 2.0]])
y = torch.tensor([[1.0, 0.5], [3.1, -1.0], [4.9, 0.2], [7.2, 1.1]])
W = torch.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
b = torch.tensor([0.0, 0.0], requires_grad=True)
optimizer = torch.optim.Adam([W, b], lr=0.3)

for step in range(30):
    loss = ((x @ W + b - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"loss = {loss.item():.4f}")
