# Basic indexing: integers, negative indices, slices with steps, None and
# Ellipsis; SelectBackward0/SliceBackward0 and gradients scattered into the base.
import torch
x = torch.arange(12.0).reshape(3, 4)
print(x[0])
print(x[-1])
print(x[:, 1])
print(x[1:3])
print(x[::2, ::3])
print(x[1, 2], x[1, 2].shape)
print(x[None].shape, x[..., 0])
print(x[1][-2:])
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
a = w[0]
b = w[:, 1:]
print(a.grad_fn, b.grad_fn)
(a * 2).sum().backward()
print(w.grad)
w.grad = None
b.sum().backward()
print(w.grad)
print(w[1, 2].item())
