# torch.autograd.backward with two roots and their gradients: L is
# sum(ga * a) + sum(gb * b).
import torch
x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
a = x.exp()
b = (x * x).sum()
torch.autograd.backward([a, b], [torch.tensor([1.0, -2.0], dtype=torch.float64),
                                 torch.tensor(0.5, dtype=torch.float64)])
print(x.grad)
