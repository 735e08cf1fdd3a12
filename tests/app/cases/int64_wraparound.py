# int64 arithmetic wraps around as PyTorch's does (two's complement), with no
# undefined behaviour in the kernels (issue 9, item 9).
import torch

m = -9223372036854775807 - 1
M = 9223372036854775807
t = torch.tensor([m, 5, M])
print(t.abs())
print(-t)
print(t.neg())
print(t.square())
print(t - 1)
print(t + 1)
print(t * 2)
print(t * t)
print(t ** 2)
print(t.pow(3))
print(torch.tensor(3) ** 40)
print(torch.tensor([3, -3, 2]) ** 63)
print(t.add(t, alpha=2))
print(t.sum())
print(t.prod())
print(t.abs().sum())
print(t.sum(0, keepdim=True))
print(torch.tensor([[m], [-1]]).sum(0))
print(torch.tensor([[M], [2]]).prod(0))
print(torch.tensor([m, -1]).view(2, 1).sum(1))
print(torch.tensor([M] * 40).sum())
print(torch.tensor([M] * 40).view(4, 10).sum(1))
print(torch.tensor([m, -7, 7]) // torch.tensor([3, 2, -2]))
print(torch.tensor([m, -7, 7]) % torch.tensor([3, 2, -2]))
print(t.sign(), t.relu(), t.max(), t.min())
print(torch.tensor([1e300, -1e300, 2.5, -2.5]).long())
print(torch.tensor([1e300], dtype=torch.float64).long())
print(t.double().long())
print(torch.arange(m, M, 2**62))
try:
    t // 0
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    t % 0
except RuntimeError as e:
    print("RuntimeError:", e)
