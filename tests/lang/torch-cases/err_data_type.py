import torch
torch.tensor([1, 'a'])
