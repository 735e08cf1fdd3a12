# Training a two-layer network with torch.optim.SGD.
# Each step: forward, loss, zero_grad(), backward(), optimizer.step().
# The data set is four points of XOR-like data and the initial weights are fixed,
# so every run prints the same falling loss.
import torch
import torch.nn.functional as F

X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])

W1 = torch.tensor([[0.5, -0.4, 0.3, 0.8], [-0.6, 0.7, 0.9, -0.2]], requires_grad=True)
b1 = torch.tensor([0.1, 0.0, -0.1, 0.2], requires_grad=True)
W2 = torch.tensor([[0.7], [-0.5], [0.6], [-0.9]], requires_grad=True)
b2 = torch.tensor([0.05], requires_grad=True)

optimizer = torch.optim.SGD([W1, b1, W2, b2], lr=0.5)

for step in range(201):
    hidden = torch.tanh(X @ W1 + b1)
    pred = torch.sigmoid(hidden @ W2 + b2)
    loss = F.mse_loss(pred, Y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 40 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

with torch.no_grad():
    pred = torch.sigmoid(torch.tanh(X @ W1 + b1) @ W2 + b2)
print(pred)
