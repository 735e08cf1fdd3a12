import math
import torch
import torch.nn as nn

torch.manual_seed(0)
w = torch.empty(3, 5)
print(nn.init.calculate_gain('relu'), nn.init.calculate_gain('leaky_relu', 0.2),
      nn.init.calculate_gain('tanh'), nn.init.calculate_gain('sigmoid'))
print(nn.init.uniform_(w, -1, 1))
print(nn.init.normal_(w, 0, 0.5))
print(nn.init.constant_(w, 0.3))
print(nn.init.zeros_(w), nn.init.ones_(torch.empty(2)))
print(nn.init.eye_(torch.empty(2, 3)))
print(nn.init.xavier_uniform_(w))
print(nn.init.xavier_normal_(w, gain=2.0))
print(nn.init.kaiming_uniform_(w, a=math.sqrt(5)))
print(nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu'))
c = torch.empty(4, 2, 3, 3)
nn.init.kaiming_uniform_(c)
print(c[0, 0])
print(nn.init.orthogonal_(torch.empty(3, 3)))
q = nn.init.orthogonal_(torch.empty(2, 4), gain=0.5)
print(q)
print(torch.mm(q, q.t()).diagonal())
lin = nn.Linear(4, 2)
print(lin.weight, lin.bias)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)


net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
net.apply(init_weights)
print(net[0].weight, net[2].bias)
print(lin.weight.requires_grad, lin.weight.grad_fn, lin.weight.is_leaf)
