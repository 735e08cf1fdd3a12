# cuda: cpu-only, the last digits are those of PyTorch's CPU loop for small batched products
import torch
torch.manual_seed(11)
q = torch.randn(2, 4, 3)
k = torch.randn(2, 3, 4)
scores = q @ k
print(scores.sum().item(), scores[1, 2, 3].item())
print(torch.bmm(q, k)[0, 0].tolist())
print(torch.baddbmm(torch.randn(4), q, k, beta=0.3, alpha=1.7)[1, 1].tolist())
print(torch.baddbmm(torch.randn(2, 4, 4), q, k).sum().item())
big = torch.randn(3, 8, 8) @ torch.randn(3, 8, 8)
print(big.shape, round(big.sum().item(), 3))
