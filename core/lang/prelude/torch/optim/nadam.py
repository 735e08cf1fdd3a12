# torch.optim.NAdam: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters
from torch.optim.radam import _adam_moments


class NAdam(Optimizer):
    _group_defaults = {'foreach': None}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, momentum_decay=4e-3, foreach=None):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay,
                               momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super(NAdam, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        state['step'] = torch.tensor(0.)
        state['mu_product'] = torch.tensor(1.)
        state['exp_avg'] = torch.zeros_like(param)
        state['exp_avg_sq'] = torch.zeros_like(param)

    def _update(self, group, param, state):
        beta1, beta2 = group['betas']
        lr = group['lr']
        momentum_decay = group['momentum_decay']
        mu_product = state['mu_product']
        grad, step, bias_correction2 = _adam_moments(group, param, state)
        mu = beta1 * (1. - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        mu_product_next = mu_product * mu * mu_next
        denom = state['exp_avg_sq'].div(bias_correction2).sqrt().add_(group['eps'])
        param.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - mu_product.item()))
        param.addcdiv_(state['exp_avg'], denom,
                       value=-lr * mu_next / (1. - mu_product_next.item()))
