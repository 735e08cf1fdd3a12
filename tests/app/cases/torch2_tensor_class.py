import torch
print(torch.Tensor)
t = torch.ones(2, requires_grad=True)
print(type(t))
print(type(torch.float64))
print(isinstance(torch.float32, torch.dtype))
print(isinstance(t, torch.dtype), isinstance(3, torch.dtype))
print(torch.dtype)
print(isinstance(t, torch.Tensor))
print(t.grad_fn)
t.grad_fnn
