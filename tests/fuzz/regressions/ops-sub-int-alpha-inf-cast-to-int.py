import torch
t = torch.tensor([1, 2])
print(t.sub(1, alpha=float("inf")))
print(t.sub(1, alpha=float("nan")))
