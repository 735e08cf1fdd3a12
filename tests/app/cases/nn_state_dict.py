import torch
import torch.nn as nn
from collections import OrderedDict

torch.manual_seed(0)
model = nn.Sequential(OrderedDict([
    ('fc', nn.Linear(2, 3)),
    ('act', nn.ReLU()),
    ('bn', nn.BatchNorm1d(3)),
]))
print(model)
print(model.fc)
sd = model.state_dict()
print(sd)
print(type(sd).__name__, list(sd.keys()))
clone = nn.Sequential(OrderedDict([
    ('fc', nn.Linear(2, 3)),
    ('act', nn.ReLU()),
    ('bn', nn.BatchNorm1d(3)),
]))
result = clone.load_state_dict(sd)
print(result)
print(torch.equal(clone.fc.weight, model.fc.weight), clone.bn.num_batches_tracked)
missing = OrderedDict([(k, v) for k, v in sd.items() if k != 'fc.bias'])
print(clone.load_state_dict(missing, strict=False))
