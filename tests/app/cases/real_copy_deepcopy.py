# copy.deepcopy of a model's state_dict for the best epoch, and of a model
import copy
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
best = copy.deepcopy(model.state_dict())
with torch.no_grad():
    model[0].weight.fill_(1.0)
print(best['0.weight'])
print(model[0].weight)
model.load_state_dict(best)
print(model[0].weight)

twin = copy.deepcopy(model)
with torch.no_grad():
    twin[2].bias.add_(10)
print(type(twin).__name__, type(twin[2].bias).__name__, twin[2].bias.requires_grad)
print(model[2].bias, twin[2].bias)
print(twin[0] is twin[0], twin[0] is model[0])

shared = [torch.ones(2)]
pair = copy.deepcopy([shared, shared])
print(pair[0] is pair[1], pair[0] is shared)
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
y = copy.deepcopy(x)
print(y, y.grad, y.is_leaf)
print(copy.copy({'a': [1]}), copy.copy([1, [2]]))
try:
    copy.deepcopy(x * 2)
except RuntimeError as e:
    print(e)
