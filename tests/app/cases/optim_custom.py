# A user-written Optimizer subclass (state, param_groups, repr, state_dict)
# driven by a scheduler, as PyTorch 1.13 runs it.
import torch
class MySGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.0):
        defaults = dict(lr=lr, momentum=momentum)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if 'buf' not in state:
                    state['buf'] = torch.zeros_like(p)
                state['buf'].mul_(group['momentum']).add_(p.grad)
                p.add_(state['buf'], alpha=-group['lr'])
        return loss

w = torch.tensor([1.0, -1.0], requires_grad=True)
opt = MySGD([w], lr=0.1, momentum=0.5)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
print(opt)
for i in range(3):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
    sched.step()
    print(i, w, sched.get_last_lr())
print(opt.state_dict())
print(isinstance(opt, torch.optim.Optimizer), type(opt).__name__)
