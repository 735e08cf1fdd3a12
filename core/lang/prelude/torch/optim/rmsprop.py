# torch.optim.RMSprop: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class RMSprop(Optimizer):
    _group_defaults = {'momentum': 0, 'centered': False, 'foreach': None,
                       'maximize': False, 'differentiable': False}

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, momentum=momentum,
                               weight_decay=weight_decay, alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super(RMSprop, self).__init__(params, defaults)

    def step(self, closure=None):
        return self._step_each(closure, self.defaults['differentiable'])

    def _init_state(self, group, param, state):
        state['step'] = 0
        state['square_avg'] = torch.zeros_like(param)
        if group['momentum'] > 0:
            state['momentum_buffer'] = torch.zeros_like(param)
        if group['centered']:
            state['grad_avg'] = torch.zeros_like(param)

    def _update(self, group, param, state):
        alpha = group['alpha']
        weight_decay = group['weight_decay']
        differentiable = group['differentiable']
        if differentiable and isinstance(state['step'], torch.Tensor):
            raise RuntimeError('`step` can\'t be a tensor')
        state['step'] += 1
        grad = self._grad_of(group, param)
        square_avg = state['square_avg']
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group['centered']:
            grad_avg = state['grad_avg']
            grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        if differentiable:
            avg = avg.add(group['eps'])
        else:
            avg = avg.add_(group['eps'])
        if group['momentum'] > 0:
            buf = state['momentum_buffer']
            buf.mul_(group['momentum']).addcdiv_(grad, avg)
            param.add_(buf, alpha=-group['lr'])
        else:
            param.addcdiv_(grad, avg, value=-group['lr'])
