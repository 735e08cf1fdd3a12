# torch.optim.RMSprop: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, foreach=None, maximize=False,
                 differentiable=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= momentum:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= alpha:
            raise ValueError("Invalid alpha value: {}".format(alpha))
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super(RMSprop, self).__init__(params, defaults)

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault('momentum', 0)
            group.setdefault('centered', False)
            group.setdefault('foreach', None)
            group.setdefault('maximize', False)
            group.setdefault('differentiable', False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.set_grad_enabled(self.defaults['differentiable']):
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group):
        lr = group['lr']
        alpha = group['alpha']
        eps = group['eps']
        weight_decay = group['weight_decay']
        momentum = group['momentum']
        centered = group['centered']
        maximize = group['maximize']
        differentiable = group['differentiable']
        for param in group['params']:
            if param.grad is None:
                continue
            state = self._state_of(param)
            if len(state) == 0:
                state['step'] = 0
                state['square_avg'] = torch.zeros_like(param)
                if momentum > 0:
                    state['momentum_buffer'] = torch.zeros_like(param)
                if centered:
                    state['grad_avg'] = torch.zeros_like(param)
            if differentiable and isinstance(state['step'], torch.Tensor):
                raise RuntimeError('`step` can\'t be a tensor')
            state['step'] += 1
            grad = param.grad if not maximize else -param.grad
            square_avg = state['square_avg']
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if centered:
                grad_avg = state['grad_avg']
                grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            if differentiable:
                avg = avg.add(eps)
            else:
                avg = avg.add_(eps)
            if momentum > 0:
                buf = state['momentum_buffer']
                buf.mul_(momentum).addcdiv_(grad, avg)
                param.add_(buf, alpha=-lr)
            else:
                param.addcdiv_(grad, avg, value=-lr)
