import torch
import torch.nn as nn
from torch.autograd import gradcheck

W = torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.0, -0.5]], dtype=torch.float64, requires_grad=True)
b = torch.full((2,), 0.1, dtype=torch.float64, requires_grad=True)
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], dtype=torch.float64)
target = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
f = lambda W, b: nn.functional.mse_loss(torch.sigmoid(nn.functional.linear(x, W, b)), target)
print("weight", "ok" if gradcheck(lambda v: f(v, b), (W,), raise_exception=False) else "DIFFERS")
print("bias", "ok" if gradcheck(lambda v: f(W, v), (b,), raise_exception=False) else "DIFFERS")
