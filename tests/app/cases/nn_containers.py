import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(3, 4),
    nn.ReLU(),
    nn.Sequential(nn.Linear(4, 4), nn.Tanh()),
    nn.Linear(4, 1),
    nn.Sigmoid(),
)
print(model)
print(model[0])
print(model[-1])
print(model[1:3])
print(len(model))
for m in model:
    print(type(m).__name__)
named = nn.Sequential(nn.Linear(2, 2), nn.LeakyReLU(0.2))
print(named)
print(named[0])
ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
ml.append(nn.ELU())
print(ml)
print(len(ml), ml[1])
md = nn.ModuleDict({'a': nn.Softplus(), 'b': nn.GELU()})
print(md)
print('a' in md, list(md.keys()))
print(nn.Softmax(dim=1), nn.LogSoftmax(dim=-1), nn.Softmax())
print(nn.Flatten(), nn.Unflatten(1, (2, 3)), nn.Identity(), nn.SiLU(), nn.ReLU(inplace=True))
print(nn.MSELoss(), nn.CrossEntropyLoss(), nn.BCELoss(reduction='sum'), nn.HuberLoss(delta=0.5))
print(nn.Bilinear(2, 3, 4))
print(nn.Linear(2, 3, bias=False))
p = nn.Parameter(torch.ones(2))
print(p)
print(isinstance(p, torch.Tensor), isinstance(p, nn.Parameter), p.requires_grad)
q = nn.Parameter(torch.zeros(2), requires_grad=False)
print(q)
print(list(model.state_dict().keys()))
