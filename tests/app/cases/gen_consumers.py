import torch
import torch.nn as nn
def g(n):
    for i in range(n):
        yield i
print(*g(3))
print([*g(3), *g(2)], (*g(2),), {*g(3)})
l = []
l.extend(g(3))
print(l, ",".join(str(i) for i in g(3)))
print(dict((i, i * i) for i in g(3)), dict(zip(g(2), "ab")))
def f(*a, **k):
    return a, k
print(f(*g(3)), max(g(4)), sorted(g(3), reverse=True))
print(torch.cat(list(torch.ones(i) for i in g(3))))
print(torch.tensor(list(g(4))).sum())
model = nn.Sequential(*(nn.Linear(2, 2) for _ in range(2)))
print(len(list(model.parameters())), sum(p.numel() for p in model.parameters()))
print([n for n, _ in model.named_parameters()])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print(len(opt.param_groups[0]["params"]))
ml = nn.ModuleList(nn.ReLU() for _ in range(3))
print(len(ml))
print(type(model.parameters()).__name__)
print(list(model.children())[0])
print([name for name, m in model.named_modules()])
a, b = g(2)
print(a, b)
s = set()
s.update(g(3))
print(s)
print(list(map(lambda x: x + 1, g(3))), list(filter(None, g(4))))
print(any(True for _ in g(0)), all(x < 5 for x in g(5)))
print(torch.stack([torch.tensor(float(i)) for i in g(3)]))
print(list(enumerate(g(2), 1)), list(reversed(list(g(3)))))
