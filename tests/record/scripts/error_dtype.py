# A dtype error in a method call: the receiver first, then the argument.
import torch
w = torch.ones(3, 2, requires_grad=True)
x = torch.ones(4, 3, dtype=torch.float64)
y = x.matmul(w)  # record: operands=x,w
