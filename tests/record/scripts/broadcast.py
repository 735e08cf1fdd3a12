# Broadcasting: b (3,) against x (2, 3), and a bias (1, 3) against (2, 3):
# each input's gradient is the product summed back to its shape.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
y = (x * b).sum()
y.backward()
print(b.grad)

w = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
bias = torch.tensor([[0.1, 0.2, 0.3]], requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
out = ((w + bias) * s).pow(2).mean()
out.backward()
print(w.grad, bias.grad, s.grad)
