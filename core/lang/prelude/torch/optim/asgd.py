# torch.optim.ASGD: PyTorch 1.13's single-tensor update, op by op.
import math
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class ASGD(Optimizer):
    _group_defaults = {'foreach': None, 'maximize': False}

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False):
        _check_hyperparameters(lr=lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super(ASGD, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        # On the CPU, as PyTorch 1.13 makes them.
        state['step'] = torch.tensor(0., device='cpu')
        state['eta'] = torch.tensor(group['lr'], device='cpu')
        state['mu'] = torch.tensor(1., device='cpu')
        state['ax'] = torch.zeros_like(param)

    def _update(self, group, param, state):
        lambd = group['lambd']
        lr = group['lr']
        grad = self._grad_of(group, param)
        mu = state['mu']
        ax = state['ax']
        eta = state['eta']
        step_t = state['step']
        step_t += 1
        step = step_t.item()
        if group['weight_decay'] != 0:
            grad = grad.add(param, alpha=group['weight_decay'])
        param.mul_(1 - lambd * eta.item())
        param.add_(grad, alpha=-eta.item())
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul(mu))
        else:
            ax.copy_(param)
        eta.copy_(torch.tensor(lr / math.pow((1 + lambd * lr * step), group['alpha']), device='cpu'))
        mu.copy_(torch.tensor(1 / max(1, step - group['t0']), device='cpu'))
