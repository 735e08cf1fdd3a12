# Casting with .float(), .double(), .long(), .int()-free forms, .bool() and
# .to(dtype): values, dtype suffixes, and the gradient through ToCopyBackward0.
import torch
x = torch.tensor([1.7, -2.3, 0.0, 3.5], requires_grad=True)
print(x.long())
print(x.bool())
d = x.double()
print(d)
print(d.grad_fn)
print(x.to(torch.float64).dtype, x.to(torch.float32) is x)
print(torch.tensor([1, 0, 2]).float())
print(torch.tensor([True, False]).long())
(d * d).sum().backward()
print(x.grad, x.grad.dtype)
print(torch.ones(2, dtype=torch.float64))
print(torch.tensor([0.1, 0.2], dtype=torch.float64) + 0.1)
