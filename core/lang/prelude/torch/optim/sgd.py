# torch.optim.SGD: PyTorch 1.13's single-tensor update, op by op, so that the
# floats match PyTorch's (add with alpha= is one fused multiply-add).
import torch
from torch.optim.optimizer import Optimizer, required


class SGD(Optimizer):
    _group_defaults = {'nesterov': False, 'maximize': False, 'foreach': None,
                       'differentiable': False}

    def __init__(self, params, lr=required, momentum=0, dampening=0,
                 weight_decay=0, nesterov=False, *, maximize=False, foreach=None,
                 differentiable=False):
        # SGD's own checks: `x < 0.0`, so a NaN passes as in PyTorch.
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach,
                        differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super(SGD, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure, self.defaults['differentiable'])

    def _update(self, group, param, state):
        momentum = group['momentum']
        weight_decay = group['weight_decay']
        d_p = self._grad_of(group, param)
        if weight_decay != 0:
            d_p = d_p.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = state.get('momentum_buffer')
            if buf is None:
                buf = torch.clone(d_p).detach()
                state['momentum_buffer'] = buf
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - group['dampening'])
            if group['nesterov']:
                d_p = d_p.add(buf, alpha=momentum)
            else:
                d_p = buf
        else:
            state['momentum_buffer'] = None
        param.add_(d_p, alpha=-group['lr'])
