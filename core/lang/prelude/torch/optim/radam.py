# torch.optim.RAdam: PyTorch 1.13's single-tensor update, op by op.
import math
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


def _adam_moments(group, param, state):
    # The first half of RAdam's and NAdam's update: the step count, weight decay
    # into the gradient, both moving averages. Returns (grad, step,
    # bias_correction2).
    beta1, beta2 = group['betas']
    grad = param.grad
    step_t = state['step']
    step_t += 1
    step = step_t.item()
    bias_correction2 = 1 - beta2 ** step
    if group['weight_decay'] != 0:
        grad = grad.add(param, alpha=group['weight_decay'])
    state['exp_avg'].mul_(beta1).add_(grad, alpha=1 - beta1)
    state['exp_avg_sq'].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    return grad, step, bias_correction2


class RAdam(Optimizer):
    _group_defaults = {'foreach': None}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, foreach=None):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach)
        super(RAdam, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        state['step'] = torch.tensor(0.)
        state['exp_avg'] = torch.zeros_like(param)
        state['exp_avg_sq'] = torch.zeros_like(param)

    def _update(self, group, param, state):
        beta1, beta2 = group['betas']
        lr = group['lr']
        grad, step, bias_correction2 = _adam_moments(group, param, state)
        bias_corrected_exp_avg = state['exp_avg'] / (1 - beta1 ** step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                             ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            # PyTorch's float / Tensor is reciprocal() * float.
            adaptive_lr = state['exp_avg_sq'].sqrt().add_(group['eps']).reciprocal() \
                * math.sqrt(bias_correction2)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
