# Masked assignment x[x < 0] = 0 (what ReLU does by hand), on plain tensors and
# on a clone that carries history (IndexPutBackward0 blocks the gradient there).
import torch
x = torch.tensor([[-1.0, 2.0], [3.0, -4.0]])
x[x < 0] = 0
print(x)
z = torch.tensor([1.0, -2.0, 3.0, -4.0])
z[z > 0] = z[z > 0] * 10
print(z)

w = torch.tensor([-1.5, 0.5, -0.25, 2.0], requires_grad=True)
h = w.clone()
h[h < 0] = 0
print(h)
print(h.grad_fn)
(h * h).sum().backward()
print(w.grad)
