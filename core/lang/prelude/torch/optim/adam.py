# torch.optim.Adam: PyTorch 1.13's single-tensor update (its default: foreach
# is None means False in 1.13), op by op so that the floats match.
import math
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class Adam(Optimizer):
    _group_defaults = {'amsgrad': False, 'maximize': False, 'foreach': None,
                       'capturable': False, 'differentiable': False, 'fused': False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False,
                 differentiable=False, fused=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        super(Adam, self).__init__(params, defaults)
        if fused:
            raise RuntimeError("FusedAdam requires all the params to be CUDA, floating point")

    def step(self, closure=None):
        return self._step_each(closure, self.defaults['differentiable'])

    def _init_state(self, group, param, state):
        _adam_init_state(group, param, state)

    def _update(self, group, param, state):
        _adam_update(group, param, state, self._grad_of(group, param), False)


def _adam_init_state(group, param, state):
    state['step'] = torch.tensor(0.)
    state['exp_avg'] = torch.zeros_like(param)
    state['exp_avg_sq'] = torch.zeros_like(param)
    if group['amsgrad']:
        state['max_exp_avg_sq'] = torch.zeros_like(param)


def _adam_update(group, param, state, grad, decoupled):
    # Adam's update, and AdamW's when decoupled (weight decay on the param).
    beta1, beta2 = group['betas']
    lr = group['lr']
    weight_decay = group['weight_decay']
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
    if group['amsgrad']:
        max_exp_avg_sq = state['max_exp_avg_sq']
        max_exp_avg_sq.copy_(torch.maximum(max_exp_avg_sq, exp_avg_sq))
        denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(group['eps'])
    else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(group['eps'])
    param.addcdiv_(exp_avg, denom, value=-step_size)
