# Comparisons give bool tensors (no gradient); sums of booleans count; bool
# tensors print as True/False and convert with .float().
import torch
a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
b = torch.tensor([4.0, 2.0, 1.0, 5.0])
print(a > b)
print(a >= b)
print(a < 2.5)
print(a <= 2)
print(a == b)
print(a != b)
print((a > b).sum())
print((a > b).float().mean())
print((a > 1) & (a < 4))
print((a < 2) | (a > 3))
print((a > b).requires_grad, (a > b).dtype)
print(torch.eq(a, b), torch.gt(a, 2))
