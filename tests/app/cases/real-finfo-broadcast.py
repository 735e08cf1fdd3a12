# torch.finfo (the eps a normalisation adds) and torch.broadcast_tensors.
import torch

print(torch.finfo(torch.float32))
print(torch.finfo(torch.float64))
print(torch.finfo())
f = torch.finfo(torch.float32)
print(f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype, type(f.dtype))
returns = torch.tensor([1.0, 2.0, 3.0])
print((returns - returns.mean()) / (returns.std() + torch.finfo(returns.dtype).eps))
try:
    torch.finfo(torch.int64)
except TypeError as e:
    print("TypeError:", e)

a = torch.ones(3, requires_grad=True)
b, c = torch.broadcast_tensors(a, torch.ones(2, 1))
print(b, c, b.grad_fn.name())
print(torch.broadcast_tensors(a)[0] is a, torch.broadcast_tensors(a, torch.ones(3))[0].grad_fn)
b.sum().backward()
print(a.grad)
try:
    torch.broadcast_tensors(torch.ones(2), torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", e)
