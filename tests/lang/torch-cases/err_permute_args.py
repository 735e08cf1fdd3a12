import torch
x = torch.tensor([1., 2.], requires_grad=True)
torch.permute(x, 1, 0)
