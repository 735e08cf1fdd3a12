# Printing forms: 3-d and 4-d layouts, int and bool tensors, the float64 dtype
# suffix, negative zero, nan/inf, empty tensors and 0-d tensors.
import torch
print(torch.arange(12).reshape(2, 3, 2))
print(torch.arange(8.0).reshape(2, 2, 1, 2))
print(torch.tensor([[True, False], [False, False]]))
print(torch.tensor([1.0, 2.5], dtype=torch.float64))
print(torch.tensor([3.0], dtype=torch.float64, requires_grad=True))
print(torch.tensor([-0.0, 1.0]), torch.tensor([-0.0, 0.5]))
print(torch.tensor([float('nan'), 1.0, float('-inf')]))
print(torch.tensor([]))
print(torch.tensor([], dtype=torch.int64))
print(torch.zeros(0, 3))
print(torch.tensor(7), torch.tensor(True), torch.tensor(-0.5))
print(torch.tensor([[-1234.5, 1.0]]))
print(torch.tensor([1.0, 2.0]) * 1e-5)
print(torch.arange(25.0).reshape(5, 5) * 1.5 - 10)
print(torch.arange(30) * 100000)
