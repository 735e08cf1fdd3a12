# softmax and log_softmax along different dimensions; rows (dim=1) or columns
# (dim=0) sum to one; the gradient of a softmax entry.
import torch
import torch.nn.functional as F
z = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], requires_grad=True)
print(F.softmax(z, dim=1))
print(F.softmax(z, dim=0))
print(torch.softmax(z, dim=-1).sum(dim=-1))
print(z.softmax(dim=1))
print(F.log_softmax(z, dim=1))
s = F.softmax(z, dim=1)
s[0, 2].backward()
print(z.grad)
big = torch.tensor([1000.0, 1001.0, 1002.0])
print(F.softmax(big, dim=0))
print(F.log_softmax(big, dim=0))
