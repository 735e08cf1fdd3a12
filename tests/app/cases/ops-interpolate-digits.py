# cuda: cpu-only, the last digits are those of PyTorch's CPU kernel (FMA-built), not its CUDA one
import torch
import torch.nn.functional as F
torch.manual_seed(5)
x = torch.randn(1, 2, 4, 5)
for kw in [dict(scale_factor=1.5, mode='bilinear'), dict(size=(7, 3), mode='bilinear', align_corners=True),
           dict(scale_factor=(2.3, 1.7), mode='bilinear')]:
    y = F.interpolate(x, **kw)
    print(y.sum().item(), y[0, 1, 2].tolist())
s = torch.randn(2, 3, 5)
print(F.interpolate(s, scale_factor=1.5, mode='linear')[1, 2].tolist())
print(F.interpolate(s, size=11, mode='linear', align_corners=True).sum().item())
