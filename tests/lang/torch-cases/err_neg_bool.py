import torch
-torch.tensor([True])
