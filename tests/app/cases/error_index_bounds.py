# Indexing past the end of a dimension.
import torch
x = torch.zeros(2, 3)
print(x[1, 2])
print(x[:, 3])
