import torch
torch.full(2, 1.5)
