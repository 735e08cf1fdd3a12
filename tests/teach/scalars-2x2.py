# A 2x2 matmul to open as scalars (the key s on its step, or Ctrl+Shift+O):
# c[0, 0] = a[0, 0]*b[0, 0] + a[0, 1]*b[1, 0], and the chain rule element by element.
import torch

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)
c = a @ b
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
L = (c * w).sum()
L.backward()
