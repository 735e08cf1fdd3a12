# torch.optim.Adadelta (the optimizer of PyTorch's MNIST example): 1.13's
# single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class Adadelta(Optimizer):
    _group_defaults = {'foreach': None, 'maximize': False}

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 maximize=False):
        _check_hyperparameters(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach)
        super(Adadelta, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        state['step'] = 0
        state['square_avg'] = torch.zeros_like(param)
        state['acc_delta'] = torch.zeros_like(param)

    def _update(self, group, param, state):
        rho = group['rho']
        eps = group['eps']
        state['step'] += 1
        square_avg = state['square_avg']
        acc_delta = state['acc_delta']
        grad = self._grad_of(group, param)
        if group['weight_decay'] != 0:
            grad = grad.add(param, alpha=group['weight_decay'])
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group['lr'])
