import torch
x = torch.tensor([1., 2.], requires_grad=True)
torch.exp(x, 1)
