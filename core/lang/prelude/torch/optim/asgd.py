# torch.optim.ASGD: PyTorch 1.13's single-tensor update, op by op.
import math
import torch
from torch.optim.optimizer import Optimizer


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super(ASGD, self).__init__(params, defaults)

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault('foreach', None)
            group.setdefault('maximize', False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                lambd = group['lambd']
                lr = group['lr']
                t0 = group['t0']
                alpha = group['alpha']
                weight_decay = group['weight_decay']
                maximize = group['maximize']
                for param in group['params']:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        # On the CPU, as PyTorch 1.13 makes them.
                        state['step'] = torch.tensor(0., device='cpu')
                        state['eta'] = torch.tensor(lr, device='cpu')
                        state['mu'] = torch.tensor(1., device='cpu')
                        state['ax'] = torch.zeros_like(param)
                    grad = param.grad if not maximize else -param.grad
                    mu = state['mu']
                    ax = state['ax']
                    eta = state['eta']
                    step_t = state['step']
                    step_t += 1
                    step = step_t.item()
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    param.mul_(1 - lambd * eta.item())
                    param.add_(grad, alpha=-eta.item())
                    if mu.item() != 1:
                        ax.add_(param.sub(ax).mul(mu))
                    else:
                        ax.copy_(param)
                    eta.copy_(torch.tensor(lr / math.pow((1 + lambd * lr * step), alpha), device='cpu'))
                    mu.copy_(torch.tensor(1 / max(1, step - t0), device='cpu'))
        return loss
