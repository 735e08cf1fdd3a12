# nn.Module code: a two-layer MLP with an MSE loss, one backward.
import torch
import torch.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = MLP()
inputs = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
target = torch.tensor([[1.0], [0.0]])
loss = nn.functional.mse_loss(model(inputs), target)
loss.backward()
print(model.fc1.weight.grad)
print(model.fc2.bias.grad)
