import torch
torch.ones(2, device='gpu')
