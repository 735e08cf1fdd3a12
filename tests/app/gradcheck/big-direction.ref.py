import torch
from torch.autograd import gradcheck
A = torch.linspace(-1.0, 1.0, 25, dtype=torch.float64).reshape(5, 5).requires_grad_()
v = torch.linspace(0.5, 1.5, 5, dtype=torch.float64)
f = lambda A: torch.sin(A @ v).pow(2).sum() + (A * A).mean()
print("A", "ok" if gradcheck(f, (A,), fast_mode=True, raise_exception=False) else "DIFFERS")
