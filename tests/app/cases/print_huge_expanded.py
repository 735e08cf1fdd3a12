# Printing a huge expanded tensor summarizes (reads a few elements), as
# PyTorch does, so it is immediate (issue 9, item 8).
import torch

print(torch.ones(1).expand(10**6, 10**6))
print(torch.arange(3.).expand(2**40, 3))
print(torch.ones(1, 1, 1).expand(10**4, 10**4, 10**4).shape)
print(torch.tensor(7).expand(2**31, 2**31))
print(torch.ones(1).expand(3, 2**61))
