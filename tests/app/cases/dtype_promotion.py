# Type promotion: int with float gives float32, Python floats do not upgrade a
# float32 tensor, float64 wins over float32, true division of ints gives floats.
import torch
i = torch.tensor([1, 2, 3])
f = torch.tensor([0.5, 1.5, 2.5])
d = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
print((i + f).dtype, i + f)
print((i * 2.5).dtype, i * 2.5)
print((i * 2).dtype, i * 2)
print((i / 2).dtype, i / 2)
print((i // 2).dtype, i // 2)
print((f + d).dtype, f + d)
print((d * 2).dtype)
print((torch.tensor(2.0, dtype=torch.float64) * f).dtype)
print((torch.tensor(3) * f).dtype)
print((torch.tensor([True, False]) + i[:2]).dtype)
print((torch.tensor([True, False]) * 1.5).dtype)
print(i.dtype, f.dtype, d.dtype, torch.tensor([True]).dtype)
print(torch.tensor(1).dtype, torch.tensor(1.0).dtype)
