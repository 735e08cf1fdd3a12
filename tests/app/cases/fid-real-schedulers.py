# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
p = nn.Parameter(torch.ones(2))
def run(make, steps=6, metric=None):
    opt = torch.optim.SGD([p], lr=0.1)
    s = make(opt)
    lrs = []
    for i in range(steps):
        opt.step()
        if metric is not None:
            s.step(metric[i])
        else:
            s.step()
        lrs.append(round(opt.param_groups[0]['lr'], 6))
    print(type(s).__name__, lrs)
run(lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9))
run(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.1))
run(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5))
run(lambda o: torch.optim.lr_scheduler.LambdaLR(o, lr_lambda=lambda e: 0.5 ** e))
run(lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5), metric=[1, 1, 1, 1, 1, 1])
run(lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3))
run(lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=6))
run(lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=4))
opt = torch.optim.Adam([p], lr=1e-3, weight_decay=1e-4)
print(opt.param_groups[0]['weight_decay'], opt.defaults['lr'])
for g in opt.param_groups:
    g['lr'] = 0.5
print(opt.param_groups[0]['lr'])
print(torch.optim.RMSprop([p], lr=0.01), torch.optim.Adagrad([p]).defaults['lr'])
