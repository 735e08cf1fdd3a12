# torch.optim.Adam: PyTorch 1.13's single-tensor update (its default: foreach
# is None means False in 1.13), op by op so that the floats match.
import math
import torch
from torch.optim.optimizer import Optimizer


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False,
                 differentiable=False, fused=False):
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
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        super(Adam, self).__init__(params, defaults)
        if fused:
            raise RuntimeError("FusedAdam requires all the params to be CUDA, floating point")

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault('amsgrad', False)
            group.setdefault('maximize', False)
            group.setdefault('foreach', None)
            group.setdefault('capturable', False)
            group.setdefault('differentiable', False)
            group.setdefault('fused', False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.set_grad_enabled(self.defaults['differentiable']):
            for group in self.param_groups:
                beta1, beta2 = group['betas']
                _adam_group(self, group, beta1, beta2, group['weight_decay'], False)
        return loss


def _adam_group(optimizer, group, beta1, beta2, weight_decay, decoupled):
    # Adam's update, and AdamW's when decoupled (weight decay on the param).
    amsgrad = group['amsgrad']
    lr = group['lr']
    eps = group['eps']
    maximize = group['maximize']
    for param in group['params']:
        if param.grad is None:
            continue
        grad = param.grad if not maximize else -param.grad
        state = optimizer._state_of(param)
        if len(state) == 0:
            state['step'] = torch.tensor(0.)
            state['exp_avg'] = torch.zeros_like(param)
            state['exp_avg_sq'] = torch.zeros_like(param)
            if amsgrad:
                state['max_exp_avg_sq'] = torch.zeros_like(param)
        exp_avg = state['exp_avg']
        exp_avg_sq = state['exp_avg_sq']
        step_t = state['step']
        step_t += 1
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        elif weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = math.sqrt(bias_correction2)
        if amsgrad:
            max_exp_avg_sq = state['max_exp_avg_sq']
            max_exp_avg_sq.copy_(torch.maximum(max_exp_avg_sq, exp_avg_sq))
            denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)
