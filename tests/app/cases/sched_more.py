# More of torch.optim.lr_scheduler as PyTorch 1.13 computes them: OneCycleLR
# (cos and linear, three_phase, cycling SGD's momentum and Adam's beta1),
# CyclicLR (triangular, triangular2, exp_range), CosineAnnealingWarmRestarts
# (T_mult, step(epoch) with fractions), PolynomialLR, SequentialLR and
# ChainedScheduler.
import torch
from torch.optim import lr_scheduler as S


def run(make, n=24, adam=False):
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.1) if adam else torch.optim.SGD([w], lr=0.1, momentum=0.9)
    sched = make(opt)
    lrs, moms = [], []
    for i in range(n):
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        lrs.append(round(g['lr'], 10))
        moms.append(round(g['betas'][0] if adam else g['momentum'], 10))
    print(lrs)
    print(moms)
    return opt, sched


run(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=25))
run(lambda o: S.OneCycleLR(o, max_lr=0.5, epochs=5, steps_per_epoch=5, anneal_strategy='linear',
                           three_phase=True), adam=True)
opt, sched = run(lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=30, pct_start=0.5,
                                        cycle_momentum=False))
print(sorted(opt.param_groups[0].keys()))
run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4))
run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5,
                         mode='triangular2'))
run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, mode='exp_range',
                         gamma=0.9, cycle_momentum=False))
run(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                         scale_mode='iterations'))
run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=5))
opt, sched = run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001))
for epoch in [0.5, 4.25, 10, 2]:
    sched.step(epoch)
    print(epoch, sched.T_cur, sched.T_i, sched.last_epoch, sched.get_last_lr())
run(lambda o: S.PolynomialLR(o, total_iters=8, power=2.0))
run(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.1, total_iters=2),
                                 S.ExponentialLR(o, gamma=0.9)], milestones=[3]))
run(lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2),
                                  S.ExponentialLR(o, gamma=0.9)]))
for bad in [lambda o: S.OneCycleLR(o, max_lr=1.0),
            lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=1),
            lambda o: S.CosineAnnealingWarmRestarts(o, T_0=0),
            lambda o: S.CyclicLR(o, 0.1, 1.0, mode='zigzag')]:
    try:
        run(bad, n=1)
    except ValueError as e:
        print(e)
try:
    run(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=3), n=5)
except ValueError as e:
    print(e)
