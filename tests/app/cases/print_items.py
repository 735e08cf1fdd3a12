# Python numbers out of tensors: .item() and float() give a Python float
# (float32 rounding shows), int() and .tolist(); size, shape, numel, dim, dtype.
import torch
t = torch.tensor([0.1, 0.2, 0.3])
print(t.sum().item())
print(t[0].item(), float(t[1]), t.tolist())
print(torch.tensor(0.1, dtype=torch.float64).item() + 0.2)
print(torch.tensor(7).item(), int(torch.tensor(3.9)), torch.tensor([1, 2]).tolist())
print(torch.tensor([[1.5, 2.0], [3.0, 4.0]]).tolist())
m = torch.zeros(2, 3, 4)
print(m.shape, m.size(), m.size(1), m.shape[-1])
print(m.numel(), m.dim(), m.ndim, len(m))
print(m.dtype, torch.float32, torch.int64 == torch.long)
print(list(m.shape), tuple(m.shape))
print(torch.Size([2, 3]) == m.shape[:2])
print(torch.tensor(2.5).item() * 2, torch.tensor(1e-5).item(), torch.tensor(1e20).item())
print(bool(torch.tensor(0.0)), bool(torch.tensor([3])))
