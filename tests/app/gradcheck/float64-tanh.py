# Two float64 leaves, a smooth function: every element agrees.
import torch
x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
w = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
y = (x * w).tanh().sum() + w ** 3
y.backward()
print(x.grad, w.grad)
