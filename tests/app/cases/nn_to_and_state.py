import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
net.double()
print(net[0].weight.dtype, net[1].running_mean.dtype, net[1].num_batches_tracked.dtype)
print(isinstance(net[0].weight, nn.Parameter), net[0].weight.requires_grad)
net.float()
print(net[0].weight.dtype)
net.to(torch.float64)
print(net[0].bias.dtype)
net.to(dtype=torch.float32)
print(net[0].bias.dtype)
out = net.float()
print(out is net)
x = torch.randn(3, 2)
print(net(x).dtype)
sd = net.state_dict(keep_vars=True)
print(sd['0.weight'] is net[0].weight, sd['0.weight'].requires_grad)
sd2 = net.state_dict()
print(sd2['0.weight'].requires_grad, sd2['1.num_batches_tracked'])
print(list(net.state_dict(prefix='model.').keys()))
print(net.get_submodule('0'), net.get_parameter('0.bias').shape)
m = nn.Module()
m.register_buffer('b', torch.ones(2), persistent=False)
m.register_buffer('c', torch.zeros(1))
m.register_parameter('p', nn.Parameter(torch.ones(1)))
m.extra = 5
print(list(m.state_dict().keys()), [n for n, _ in m.named_buffers()], m.extra)
print(m)
del m.b
print([n for n, _ in m.named_buffers()])
try:
    net.to(torch.int64)
except TypeError as e:
    print(e)
