import torch
x = torch.tensor([1., 2.], requires_grad=True)
torch.optim.SGD([x], lr=0.1, nesterov=True)
