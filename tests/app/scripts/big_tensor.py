# A 4000-byte tensor: over a 1K --max-memory cap.
import torch
x = torch.zeros(1000)
print(x.sum())
