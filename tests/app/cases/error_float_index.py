# Indexing with a float tensor is an IndexError: indices must be integers or
# booleans.
import torch
x = torch.tensor([1.0, 2.0, 3.0])
print(x[torch.tensor([0, 2])])
print(x[torch.tensor([0.0, 2.0])])
