import torch
from torch.autograd import gradcheck
w = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
b = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)
f = lambda w, b: (w.sin() * b + b ** 2).sum()
for name, i in (("w", 0), ("b", 1)):
    def g(v, i=i):
        args = [w, b]
        args[i] = v
        return f(*args)
    print(name, "ok" if gradcheck(g, ([w, b][i],), raise_exception=False) else "DIFFERS")
