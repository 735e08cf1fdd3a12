# cuda: cpu-only, the CUDA mock computes float32 rows in double, where 0.3 exceeds a float32 0.3
# Thresholds and bounds met exactly: 0.3 as a float32 is 0.30000001, which
# PyTorch compares in float32, so threshold(x, 0.3, v) keeps v at x = 0.3.
# Each op opens as a scalar graph whose sums equal the step's.
import torch
import torch.nn.functional as F

z = torch.tensor([0.3, 0.7, -0.3], requires_grad=True)
f = F.threshold(z * 1, 0.3, -7.0)
h = F.hardtanh(z * 1, -0.3, 0.7)
k = (z * 1).clamp(-0.3, 0.7)
print(f, h, k, sep='\n')
loss = (f * f).sum() + (h * z).sum() + k.exp().sum()
loss.backward()
print(z.grad)
