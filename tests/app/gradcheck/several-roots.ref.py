import torch
from torch.autograd import gradcheck
x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
ga = torch.tensor([1.0, -2.0], dtype=torch.float64)
gb = torch.tensor(0.5, dtype=torch.float64)
f = lambda x: (ga * x.exp()).sum() + gb * (x * x).sum()
print("x", "ok" if gradcheck(f, (x,), raise_exception=False) else "DIFFERS")
