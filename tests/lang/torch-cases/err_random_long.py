import torch
torch.randn(2, dtype=torch.int64)
