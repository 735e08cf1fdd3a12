import torch
print(True - torch.tensor([1.]))
