import torch
torch.cat([])
