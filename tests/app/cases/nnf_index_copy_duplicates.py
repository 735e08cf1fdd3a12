# cuda: cpu-only, PyTorch documents index_copy with a repeated index as nondeterministic on CUDA
import torch

# Two rows of src go to row 1: on the CPU the later one stays.
y = torch.zeros(5, 3)
src = torch.arange(6.0).reshape(2, 3)
print(y.index_copy(0, torch.tensor([1, 1]), src))
print(y.index_copy(1, torch.tensor([0, 0, 2]), torch.arange(15.0).reshape(5, 3)))
