# An index error in a loop: the operand is the loop's own binding.
import torch
w = torch.ones(3, requires_grad=True)
for i in range(4):
    h = w * i
    print(h[i].item())  # record: operands=h₄
