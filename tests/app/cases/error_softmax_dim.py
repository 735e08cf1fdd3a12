# A dimension outside the tensor's range is an IndexError naming the range.
import torch
import torch.nn.functional as F
z = torch.ones(2, 3)
print(F.softmax(z, dim=1))
print(F.softmax(z, dim=2))
