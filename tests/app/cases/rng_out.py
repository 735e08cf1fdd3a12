# out= on the samplers: PyTorch draws straight into out's dtype.
import torch
torch.manual_seed(0)
t = torch.empty(3, dtype=torch.float64)
print(torch.randn(3, out=t), t.dtype)
t = torch.empty(20, dtype=torch.float64)
torch.rand(20, out=t)
print(t)
print(torch.randint(0, 5, (3,), out=torch.empty(3, dtype=torch.float32)))
print(torch.randperm(5, out=torch.empty(5, dtype=torch.float64)))
print(torch.normal(0.0, 1.0, (4,), out=torch.empty(4, dtype=torch.float64)))
try:
    torch.randperm(2**24 + 2, dtype=torch.float32)
except RuntimeError as e:
    print(e)
