# cuda: cpu-only, PyTorch documents scatter with a repeated index as nondeterministic on CUDA
import torch

# Two values for one place: on the CPU the later one stays, and only it gets a gradient.
x = torch.ones(2, 3, requires_grad=True)
s = torch.tensor([[5., 6.], [7., 8.]], requires_grad=True)
y = x.scatter(1, torch.tensor([[0, 2], [1, 1]]), s)
print(y)
(y * torch.arange(6.).view(2, 3)).sum().backward()
print(x.grad, s.grad)
print(torch.zeros(4).scatter_(0, torch.tensor([2, 2, 2]), torch.tensor([1., 2., 3.])))
