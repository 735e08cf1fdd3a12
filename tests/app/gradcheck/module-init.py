# nn.Linear's parameters are made empty and filled under no_grad, and the
# script sets them again: the leaves are nudged as the forward sees them.
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(3, 2, dtype=torch.float64)
with torch.no_grad():
    fc.weight.copy_(torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.0, -0.5]], dtype=torch.float64))
    fc.bias.fill_(0.1)
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], dtype=torch.float64)
target = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
loss = nn.functional.mse_loss(torch.sigmoid(fc(x)), target)
loss.backward()
print(loss.item())
