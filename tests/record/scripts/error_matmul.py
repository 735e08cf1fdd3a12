# A shape error in x @ w: the error names both operands.
import torch
x = torch.ones(2, 3, requires_grad=True)
w = torch.ones(4, 2)
h = x * 2
y = h @ w  # record: operands=h,w
