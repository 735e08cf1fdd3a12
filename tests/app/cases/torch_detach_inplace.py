import torch
a = torch.ones(2, requires_grad=True)
b = a * 3
print(b.detach_() is b)
print(b, b.requires_grad, b.grad_fn, b.is_leaf)
c = (a * 2)[1:]
c.detach_()
