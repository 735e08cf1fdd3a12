# torch.optim.lr_scheduler over 25 steps each, as PyTorch 1.13 computes them:
# the chainable get_lr (CosineAnnealingLR's recursive form included),
# get_last_lr, last_epoch, two param groups, state_dict, and the closed form
# when step() is given an epoch.
import torch
from torch.optim import lr_scheduler


def make_opt():
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return torch.optim.SGD([{'params': [w]}, {'params': [b], 'lr': 0.05}], lr=0.1, momentum=0.9)


makers = [
    ('StepLR', lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    ('MultiStepLR', lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3)),
    ('ExponentialLR', lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)),
    ('LambdaLR', lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch)),
    ('LambdaLR2', lambda o: lr_scheduler.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: e % 4])),
    ('CosineAnnealingLR', lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.001)),
    ('CosineAnnealingLR0', lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4)),
]
for name, make in makers:
    opt = make_opt()
    sched = make(opt)
    print(name, sched.last_epoch, sched.get_last_lr(), sched.base_lrs)
    lrs = []
    for epoch in range(25):
        opt.step()
        sched.step()
        lrs.append([round(g['lr'], 12) for g in opt.param_groups])
    print(lrs)
    print(sched.last_epoch, sched.get_last_lr() == [g['lr'] for g in opt.param_groups])
    sd = sched.state_dict()
    print(sorted(k for k in sd.keys() if k != 'lr_lambdas'), sd['last_epoch'], sd['_step_count'])

# step(epoch): PyTorch's closed form (and its deprecation warning on stderr).
opt = make_opt()
sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in [0, 3, 7, 4]:
    opt.step()
    sched.step(epoch)
    print(epoch, sched.get_last_lr())
opt = make_opt()
sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
opt.step()
sched.step(5)
print(sched.get_last_lr())

# Resuming: last_epoch given, initial_lr required in the groups.
opt = make_opt()
try:
    lr_scheduler.StepLR(opt, step_size=2, last_epoch=4)
except KeyError as e:
    print('KeyError', e)
for g in opt.param_groups:
    g['initial_lr'] = g['lr']
sched = lr_scheduler.ExponentialLR(opt, gamma=0.5, last_epoch=4)
print(sched.last_epoch, sched.get_last_lr())
try:
    lr_scheduler.StepLR("not an optimizer", step_size=2)
except TypeError as e:
    print('TypeError', e)
