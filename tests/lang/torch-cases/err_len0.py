import torch
len(torch.tensor(1.))
