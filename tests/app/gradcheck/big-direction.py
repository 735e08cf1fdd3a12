# A 5x5 leaf (25 elements) is checked along one random direction.
import torch
A = torch.linspace(-1.0, 1.0, 25, dtype=torch.float64).reshape(5, 5).requires_grad_()
v = torch.linspace(0.5, 1.5, 5, dtype=torch.float64)
loss = torch.sin(A @ v).pow(2).sum() + (A * A).mean()
loss.backward()
