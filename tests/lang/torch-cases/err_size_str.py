import torch
torch.ones('a')
