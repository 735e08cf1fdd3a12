# A convolution's outputs are sums of the products of its window, a max
# pool's the largest of its window, an average pool's their mean: each small
# enough to open as a scalar graph (conv1d, conv2d with stride and padding,
# the pools with padding and count_include_pad=False, the adaptive pools).
import torch
import torch.nn.functional as F

x = torch.tensor([[[[1.0, -2.0, 0.5, 3.0],
                    [0.0, 1.5, -1.0, 2.0],
                    [2.5, -0.5, 1.0, -3.0],
                    [1.0, 0.5, -1.5, 0.25]]]], requires_grad=True)
w = torch.tensor([[[[0.5, -1.0], [2.0, 0.25]]]], requires_grad=True)
b = torch.tensor([0.1], requires_grad=True)
y = F.conv2d(x, w, b)
z = F.conv2d(x, w, stride=2, padding=1)
m = F.max_pool2d(x, 2)
a = F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)
s = torch.tensor([[[1.0, 2.0, -1.0, 0.5, 3.0]]], requires_grad=True)
k = torch.tensor([[[1.0, 0.0, -2.0]], [[0.5, 0.5, 0.5]]], requires_grad=True)
c = F.conv1d(s, k, padding=1)
aa = F.adaptive_avg_pool2d(x, (3, 2))
am = F.adaptive_max_pool2d(x, (2, 3))
weights = torch.arange(9.0).view(1, 1, 3, 3)
loss = (y * weights).sum() + (z * z).sum() + (m * torch.tensor([[[[1.0, -1.0], [2.0, 0.5]]]])).sum()
loss = loss + (a * torch.arange(16.0).view(1, 1, 4, 4)).sum() + (c * c).sum()
loss = loss + (aa * aa).sum() + (am * torch.arange(6.0).view(1, 1, 2, 3)).sum()
loss.backward()
print(y)
print(z)
print(m)
print(a)
print(c)
print(aa)
print(am)
print(loss)
print(x.grad)
print(w.grad)
print(b.grad)
print(s.grad)
print(k.grad)
