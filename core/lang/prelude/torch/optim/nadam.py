# torch.optim.NAdam: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, momentum_decay=4e-3, foreach=None):
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
        if not 0.0 <= momentum_decay:
            raise ValueError("Invalid momentum_decay value: {}".format(momentum_decay))
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super(NAdam, self).__init__(params, defaults)

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
                momentum_decay = group['momentum_decay']
                eps = group['eps']
                for param in group['params']:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        state['step'] = torch.tensor(0.)
                        state['mu_product'] = torch.tensor(1.)
                        state['exp_avg'] = torch.zeros_like(param)
                        state['exp_avg_sq'] = torch.zeros_like(param)
                    grad = param.grad
                    exp_avg = state['exp_avg']
                    exp_avg_sq = state['exp_avg_sq']
                    mu_product = state['mu_product']
                    step_t = state['step']
                    step_t += 1
                    step = step_t.item()
                    bias_correction2 = 1 - beta2 ** step
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    mu = beta1 * (1. - 0.5 * (0.96 ** (step * momentum_decay)))
                    mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                    mu_product *= mu
                    mu_product_next = mu_product * mu * mu_next
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                    param.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - mu_product.item()))
                    param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1. - mu_product_next.item()))
        return loss
