# torch.optim.Adamax: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class Adamax(Optimizer):
    _group_defaults = {'foreach': None, 'maximize': False}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, foreach=None, *, maximize=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super(Adamax, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        state['step'] = torch.tensor(0.)
        state['exp_avg'] = torch.zeros_like(param)
        state['exp_inf'] = torch.zeros_like(param)

    def _update(self, group, param, state):
        beta1, beta2 = group['betas']
        grad = self._grad_of(group, param)
        exp_avg = state['exp_avg']
        exp_inf = state['exp_inf']
        step_t = state['step']
        step_t += 1
        step = step_t.item()
        if group['weight_decay'] != 0:
            grad = grad.add(param, alpha=group['weight_decay'])
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        norm_buf = torch.cat([
            exp_inf.mul_(beta2).unsqueeze(0),
            grad.abs().add_(group['eps']).unsqueeze_(0)
        ], 0)
        exp_inf.copy_(torch.amax(norm_buf, 0, keepdim=False))
        clr = group['lr'] / (1 - beta1 ** step)
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
