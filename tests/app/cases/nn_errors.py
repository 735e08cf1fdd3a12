import torch
import torch.nn as nn


def attempt(label, fn):
    try:
        fn()
        print(label, 'ok')
    except Exception as e:
        print(label, type(e).__name__, e)


class NoInit(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(2, 2)


class NoForward(nn.Module):
    pass


lin = nn.Linear(3, 2)
attempt('no init', lambda: NoInit())
attempt('no forward', lambda: NoForward()(torch.ones(1)))
attempt('missing attr', lambda: lin.wieght)
attempt('assign tensor to param', lambda: setattr(lin, 'weight', torch.ones(2, 3)))
attempt('assign int to module', lambda: setattr(nn.Sequential(nn.ReLU()), '0', 5))
attempt('bad buffer name', lambda: lin.register_buffer('a.b', torch.ones(1)))
attempt('buffer exists', lambda: lin.register_buffer('weight', torch.ones(1)))
attempt('add_module type', lambda: lin.add_module('x', 3))
attempt('shape', lambda: lin(torch.ones(4, 5)))
attempt('index', lambda: nn.Sequential(nn.ReLU())[3])
attempt('modulelist index', lambda: nn.ModuleList([nn.ReLU()])[-2])
attempt('dropout p', lambda: nn.Dropout(1.5))
attempt('train arg', lambda: lin.train('yes'))
attempt('bn dims', lambda: nn.BatchNorm2d(3)(torch.ones(2, 3)))
attempt('groups', lambda: nn.Conv2d(3, 4, 3, groups=2))
attempt('gain', lambda: nn.init.calculate_gain('swish'))
attempt('fan', lambda: nn.init.xavier_uniform_(torch.empty(3)))
sd = lin.state_dict()
sd2 = dict(sd)
sd2['extra'] = torch.ones(1)
del sd2['bias']
attempt('load strict', lambda: lin.load_state_dict(sd2))
print(lin.load_state_dict(sd2, strict=False))
sd3 = dict(sd)
sd3['weight'] = torch.ones(5, 5)
attempt('load shape', lambda: lin.load_state_dict(sd3))
net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
del net[1]
print(net)
del lin.bias
print(lin.bias if hasattr(lin, 'bias') else 'gone', [n for n, _ in lin.named_parameters()])
lin.bias = None
print(lin)
