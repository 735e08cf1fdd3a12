import torch
x = torch.tensor([1., 2.], requires_grad=True)
x.register_hook(lambda g: 5)
(x * 1).sum().backward()
