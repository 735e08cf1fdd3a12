import torch
a = torch.tensor(1., requires_grad=True)
b = torch.tensor(1., requires_grad=True)
torch.autograd.grad(a * 2, [a, b])
