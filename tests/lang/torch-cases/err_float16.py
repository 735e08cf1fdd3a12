import torch
torch.zeros(2, dtype=torch.float16)
