# When tensors print in scientific notation: a value below 1e-4, a largest/
# smallest ratio above 1000, or a value above 1e8; zeros, inf and nan do not count.
import torch
print(torch.tensor([0.0001, 1.0]))
print(torch.tensor([0.00011, 0.1]))
print(torch.tensor([1.0, 999.0]))
print(torch.tensor([1.0, 1001.0]))
print(torch.tensor([0.5, 1001.0]))
print(torch.tensor([1e8]))
print(torch.tensor([1e9, 1.0]))
print(torch.tensor([0.0, 1e-5]))
print(torch.tensor([float('inf'), 1e-3, 1.0]))
print(torch.tensor([[1e-3, -2.5e4], [3.0, 0.0]]))
print(torch.tensor(1e-7))
print(torch.tensor([-1e-10, 1e10], dtype=torch.float64))
print(torch.tensor([12345.678, 0.5]))
