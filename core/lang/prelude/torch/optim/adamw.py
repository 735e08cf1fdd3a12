# torch.optim.AdamW: Adam with decoupled weight decay (PyTorch 1.13's
# single-tensor update).
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters
from torch.optim.adam import _adam_init_state, _adam_update


class AdamW(Optimizer):
    _group_defaults = {'amsgrad': False, 'maximize': False, 'foreach': None,
                       'capturable': False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2, amsgrad=False, *, maximize=False,
                 foreach=None, capturable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        super(AdamW, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        _adam_init_state(group, param, state)

    def _update(self, group, param, state):
        _adam_update(group, param, state, self._grad_of(group, param), True)
