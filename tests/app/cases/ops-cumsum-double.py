# cuda: cpu-only, PyTorch's CPU scan keeps a float running value in double; its CUDA scan does not
import torch
print(torch.tensor([1e8, 1., -1e8]).cumsum(0))
print(torch.tensor([1e8, 1., -1e8]).cumprod(0))
x = torch.full((40,), 1.1)
print(x.cumprod(0)[-5:])
print(torch.full((3, 5), 0.1).cumsum(1))
