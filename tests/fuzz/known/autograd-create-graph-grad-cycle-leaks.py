import torch
p = torch.tensor([1., 2.], requires_grad=True)
p.exp().sum().backward(create_graph=True)
