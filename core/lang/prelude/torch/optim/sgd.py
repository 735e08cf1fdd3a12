# torch.optim.SGD: PyTorch 1.13's single-tensor update, op by op, so that the
# floats match PyTorch's (add with alpha= is one fused multiply-add).
import torch
from torch.optim.optimizer import Optimizer, required


class SGD(Optimizer):
    def __init__(self, params, lr=required, momentum=0, dampening=0,
                 weight_decay=0, nesterov=False, *, maximize=False, foreach=None,
                 differentiable=False):
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

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault('nesterov', False)
            group.setdefault('maximize', False)
            group.setdefault('foreach', None)
            group.setdefault('differentiable', False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.set_grad_enabled(self.defaults['differentiable']):
            for group in self.param_groups:
                weight_decay = group['weight_decay']
                momentum = group['momentum']
                lr = group['lr']
                dampening = group['dampening']
                nesterov = group['nesterov']
                maximize = group['maximize']
                for param in group['params']:
                    if param.grad is None:
                        continue
                    d_p = param.grad if not maximize else -param.grad
                    if weight_decay != 0:
                        d_p = d_p.add(param, alpha=weight_decay)
                    if momentum != 0:
                        state = self._state_of(param)
                        buf = state.get('momentum_buffer')
                        if buf is None:
                            buf = torch.clone(d_p).detach()
                            state['momentum_buffer'] = buf
                        else:
                            buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                        if nesterov:
                            d_p = d_p.add(buf, alpha=momentum)
                        else:
                            d_p = buf
                    else:
                        self._state_of(param)['momentum_buffer'] = None
                    param.add_(d_p, alpha=-lr)
        return loss
