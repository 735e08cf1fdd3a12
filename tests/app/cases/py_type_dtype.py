import torch
x = torch.ones(2, dtype=torch.float64)
print(type(torch.float32))
print(type(x.dtype), type(x))
print(type(x.dtype) == type(torch.int64))
