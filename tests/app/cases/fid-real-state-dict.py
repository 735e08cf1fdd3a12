# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
from collections import OrderedDict

torch.manual_seed(3)
model = nn.Sequential(OrderedDict([
    ('fc1', nn.Linear(3, 4)),
    ('act', nn.Tanh()),
    ('fc2', nn.Linear(4, 1)),
]))
sd = model.state_dict()
print(type(sd).__name__)
for k, v in sd.items():
    print(k, tuple(v.shape))
print(list(sd.keys()))
model2 = nn.Sequential(OrderedDict([
    ('fc1', nn.Linear(3, 4)),
    ('act', nn.Tanh()),
    ('fc2', nn.Linear(4, 1)),
]))
print(torch.equal(model.fc1.weight, model2.fc1.weight))
result = model2.load_state_dict(sd)
print(result)
print(torch.equal(model.fc1.weight, model2.fc1.weight))
x = torch.randn(2, 3)
print(torch.allclose(model(x), model2(x)))
bn = nn.BatchNorm1d(4)
print(list(bn.state_dict().keys()))
try:
    model2.load_state_dict({'fc1.weight': torch.zeros(4, 3)})
except RuntimeError as e:
    print(str(e).splitlines()[0])
r = model2.load_state_dict({'fc1.weight': torch.zeros(4, 3)}, strict=False)
print(r.missing_keys, r.unexpected_keys)
print(model2.fc1.weight.sum())
opt = torch.optim.Adam(model.parameters(), lr=0.01)
model(x).sum().backward()
opt.step()
osd = opt.state_dict()
print(list(osd.keys()))
print(osd['param_groups'][0]['lr'], osd['param_groups'][0]['betas'])
print(sorted(osd['state'][0].keys()))
