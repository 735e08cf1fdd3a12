# torch.mm with inner sizes that differ names both shapes.
import torch
a = torch.ones(2, 3)
b = torch.ones(2, 3)
print(torch.mm(a, b.t()))
print(torch.mm(a, b))
