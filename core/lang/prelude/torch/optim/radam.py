# torch.optim.RAdam: PyTorch 1.13's single-tensor update, op by op.
import math
import torch
from torch.optim.optimizer import Optimizer


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, foreach=None):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach)
        super(RAdam, self).__init__(params, defaults)

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault('foreach', None)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group['betas']
                lr = group['lr']
                weight_decay = group['weight_decay']
                eps = group['eps']
                for param in group['params']:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        state['step'] = torch.tensor(0.)
                        state['exp_avg'] = torch.zeros_like(param)
                        state['exp_avg_sq'] = torch.zeros_like(param)
                    grad = param.grad
                    exp_avg = state['exp_avg']
                    exp_avg_sq = state['exp_avg_sq']
                    step_t = state['step']
                    step_t += 1
                    step = step_t.item()
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    bias_corrected_exp_avg = exp_avg / bias_correction1
                    rho_inf = 2 / (1 - beta2) - 1
                    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                    if rho_t > 5.:
                        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                         ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                        # PyTorch's float / Tensor is reciprocal() * float.
                        adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal() * math.sqrt(bias_correction2)
                        param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
                    else:
                        param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss
