import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()
