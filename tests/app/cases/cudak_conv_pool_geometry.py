# Convolution and pooling geometries (stride, padding, dilation, groups,
# transposed with output_padding, 1-d, ceil_mode, count_include_pad,
# divisor_override, adaptive windows) with their gradients, in float64
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(3, 4, 9, 8, dtype=torch.float64, requires_grad=True)
w = torch.randn(6, 2, 3, 2, dtype=torch.float64, requires_grad=True)
b = torch.randn(6, dtype=torch.float64, requires_grad=True)
y = F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(2, 1), groups=2)
y.pow(2).sum().backward()
print(y.shape, round(y.sum().item(), 6))
print(x.grad[1, 2, :3])
print(w.grad.sum(dim=(2, 3)), b.grad)

wt = torch.randn(4, 3, 3, 3, dtype=torch.float64, requires_grad=True)
z = F.conv_transpose2d(x, wt, stride=2, padding=1, output_padding=1)
gx, gw = torch.autograd.grad(z.sin().sum(), (x, wt))
print(z.shape, round(z.sum().item(), 6), round(gx.abs().sum().item(), 6), gw[0, 0])

s = torch.randn(2, 3, 11, dtype=torch.float64, requires_grad=True)
k = torch.randn(5, 3, 4, dtype=torch.float64)
o = F.conv1d(s, k, stride=3, padding=2, dilation=2)
o.sum().backward()
print(o[0], s.grad[1])

p = torch.randn(2, 3, 9, 7, dtype=torch.float64, requires_grad=True)
m, idx = F.max_pool2d(p, (3, 2), stride=(2, 2), padding=1, ceil_mode=True, return_indices=True)
a1 = F.avg_pool2d(p, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
a2 = F.avg_pool2d(p, (2, 3), stride=(3, 2), padding=(1, 1), divisor_override=4)
ad = F.adaptive_avg_pool2d(p, (4, 3))
am = F.adaptive_max_pool2d(p, (2, 5))
print(m.shape, idx[1, 2], a1.shape, a2.shape)
total = m.sum() + (a1 * 2).sum() + a2.pow(2).sum() + ad.exp().sum() + am.sum()
total.backward()
print(round(total.item(), 6))
print(p.grad[0, 1])
print(p.grad.sum(dim=(0, 1)))
