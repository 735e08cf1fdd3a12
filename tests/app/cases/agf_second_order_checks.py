import torch
from torch.autograd.functional import vhp, hvp, jvp, vjp
x = torch.tensor([1.0, 2.0])
for f in (vhp, hvp):
    for args in [(lambda a: (a * a).sum(), x, torch.ones(2)), (lambda a: a * a, x, torch.ones(2)),
                 (lambda a: ((a * a).sum(), a), x, torch.ones(2)), (lambda a: (a ** 3).sum(), x, None),
                 (lambda a: (a ** 3).sum(), x, torch.ones(3)), (lambda a: (a ** 3).sum(), (x, x), torch.ones(2))]:
        try:
            print(f.__name__, f(*args))
        except Exception as e:
            print(f.__name__, type(e).__name__, e)
print(jvp(lambda a: a * 2, torch.tensor([3.0])))
print(vjp(lambda a: a * 2, torch.tensor([3.0]), create_graph=True))
try:
    jvp(lambda a: a * 2, x)
except Exception as e:
    print(e)
print(hvp(lambda a, b: (a * b * b).sum(), (x, x), (torch.ones(2), torch.zeros(2)), create_graph=True))
