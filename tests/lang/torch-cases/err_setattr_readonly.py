import torch
x = torch.tensor([1., 2.], requires_grad=True)
x.shape = (1,)
