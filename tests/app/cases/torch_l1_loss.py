import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]], requires_grad=True)
y = torch.tensor([[0.0, 1.0, 0.5], [1.0, 0.0, 0.0]])
print(F.l1_loss(x, y))
print(F.l1_loss(x, y, reduction='sum'))
print(F.l1_loss(x, y, reduction='none'))
F.l1_loss(x, y).backward()
print(x.grad)
F.l1_loss(x, y, reduction='avg')
