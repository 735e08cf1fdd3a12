import torch
x = torch.tensor([[1., 2.]])
print(x.allclose(x))
