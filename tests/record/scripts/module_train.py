# nn.Sequential of equal blocks trained for three steps: module calls nested
# (layers.0 inside the model), parameters by module path, a backward call
# and an optimizer step per iteration.
import torch
import torch.nn as nn

torch.manual_seed(1)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.linear(x))


model = nn.Sequential(Block(3), Block(3), nn.Linear(3, 1))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
target = torch.tensor([[1.0], [-1.0]])
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), target)
    loss.backward()                    # record: iterations=1,2,3
    optimizer.step()
print(loss.item())
print(model[2].bias.grad)
