# torch.optim.Rprop: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class Rprop(Optimizer):
    _group_defaults = {'foreach': None, 'maximize': False}

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50),
                 foreach=None, maximize=False):
        _check_hyperparameters(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("Invalid eta values: {}, {}".format(etas[0], etas[1]))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize)
        super(Rprop, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        state['step'] = 0
        state['prev'] = torch.zeros_like(param)
        state['step_size'] = torch.full_like(param.grad, group['lr'])

    def _update(self, group, param, state):
        etaminus, etaplus = group['etas']
        step_size_min, step_size_max = group['step_sizes']
        state['step'] += 1
        grad = self._grad_of(group, param)
        prev = state['prev']
        step_size = state['step_size']
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
