# The prediction detached before the loss: backward has no graph.
import torch

x = torch.tensor([[1.0, 2.0]])
model = torch.nn.Linear(2, 1)
pred = model(x).detach()
loss = (pred - 1.0).pow(2).mean()
loss.backward()
