import torch
torch.tensor([[1, 2], [3, 4, 5]])
