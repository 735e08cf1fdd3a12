# torch.optim.Adadelta (the optimizer of PyTorch's MNIST example): 1.13's
# single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= rho <= 1.0:
            raise ValueError("Invalid rho value: {}".format(rho))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach)
        super(Adadelta, self).__init__(params, defaults)

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault('foreach', None)
            group.setdefault('maximize', False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                lr = group['lr']
                rho = group['rho']
                eps = group['eps']
                weight_decay = group['weight_decay']
                maximize = group['maximize']
                for param in group['params']:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        state['step'] = 0
                        state['square_avg'] = torch.zeros_like(param)
                        state['acc_delta'] = torch.zeros_like(param)
                    state['step'] += 1
                    square_avg = state['square_avg']
                    acc_delta = state['acc_delta']
                    grad = param.grad if not maximize else -param.grad
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                    std = square_avg.add(eps).sqrt_()
                    delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                    param.add_(delta, alpha=-lr)
        return loss
