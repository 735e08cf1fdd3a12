# ReduceLROnPlateau (mode, factor, patience, threshold and its mode,
# cooldown, min_lr per group, verbose), and the order warning: calling
# scheduler.step() before optimizer.step() warns on stderr as PyTorch 1.13
# does, the schedule still advances.
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR

losses = [5.0, 4.0, 4.0, 4.0, 4.0, 3.9999, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0,
          3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
for kw in [dict(patience=2),
           dict(patience=1, cooldown=2, factor=0.5, min_lr=[0.02, 0.001]),
           dict(mode='max', threshold_mode='abs', patience=0, threshold=0.5),
           dict(threshold=0.3, patience=1, eps=0.05),
           dict(patience=3, verbose=True, factor=0.2)]:
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([{'params': [w]}, {'params': [b], 'lr': 0.01}], lr=0.1)
    sched = ReduceLROnPlateau(opt, **kw)
    lrs = []
    for loss in losses:
        opt.step()
        sched.step(loss)
        lrs.append([round(g['lr'], 12) for g in opt.param_groups])
    print(kw)
    print(lrs)
    print(sched.best, sched.num_bad_epochs, sched.cooldown_counter, sched.last_epoch,
          sched.in_cooldown, sched._last_lr)

sched = ReduceLROnPlateau(opt, patience=0)
sched.step(torch.tensor(1.5))
print(sched.best)
for kw in [dict(factor=1.0), dict(mode='avg'), dict(threshold_mode='x'), dict(min_lr=[0.1])]:
    try:
        ReduceLROnPlateau(opt, **kw)
    except ValueError as e:
        print(e)

w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
sched = StepLR(opt, step_size=1, gamma=0.5, verbose=True)
sched.step()
opt.step()
sched.step()
print(opt.param_groups[0]['lr'], sched.get_last_lr())
