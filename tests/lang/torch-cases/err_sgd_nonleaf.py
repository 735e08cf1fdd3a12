import torch
x = torch.tensor([1., 2.], requires_grad=True)
torch.optim.SGD([x * 2], lr=0.1)
