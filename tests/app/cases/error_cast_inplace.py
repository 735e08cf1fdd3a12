# An in-place op cannot store a float result into an int tensor.
import torch
counts = torch.tensor([1, 2, 3])
counts += 1
print(counts)
counts *= 1.5
