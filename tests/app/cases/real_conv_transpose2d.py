# nn.ConvTranspose2d as the DCGAN tutorial's generator uses it
import torch
from torch import nn
torch.manual_seed(0)
up = nn.ConvTranspose2d(4, 2, 4, 2, 1, bias=False)
print(up, up.weight.shape)
x = torch.randn(1, 4, 3, 3)
y = up(x)
print(y.shape, y.grad_fn)
y.pow(2).sum().backward()
print(up.weight.grad.abs().sum())
up2 = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
z = up2(torch.randn(1, 2, 4, 4), output_size=[8, 8])
print(z.shape, up2.bias.shape, nn.ConvTranspose1d(2, 3, 3, stride=2)(torch.randn(1, 2, 5)).shape)
try:
    up2(torch.randn(1, 2, 4, 4), output_size=[10, 10])
except ValueError as e:
    print(e)
try:
    nn.ConvTranspose2d(2, 3, 3, padding_mode='reflect')
except ValueError as e:
    print(e)
