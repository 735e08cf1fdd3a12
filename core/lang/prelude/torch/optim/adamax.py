# torch.optim.Adamax: PyTorch 1.13's single-tensor update, op by op.
import torch
from torch.optim.optimizer import Optimizer


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, foreach=None, *, maximize=False):
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
                        foreach=foreach, maximize=maximize)
        super(Adamax, self).__init__(params, defaults)

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
                beta1, beta2 = group['betas']
                eps = group['eps']
                lr = group['lr']
                weight_decay = group['weight_decay']
                maximize = group['maximize']
                for param in group['params']:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if len(state) == 0:
                        state['step'] = torch.tensor(0.)
                        state['exp_avg'] = torch.zeros_like(param)
                        state['exp_inf'] = torch.zeros_like(param)
                    grad = param.grad if not maximize else -param.grad
                    exp_avg = state['exp_avg']
                    exp_inf = state['exp_inf']
                    step_t = state['step']
                    step_t += 1
                    step = step_t.item()
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    norm_buf = torch.cat([
                        exp_inf.mul_(beta2).unsqueeze(0),
                        grad.abs().add_(eps).unsqueeze_(0)
                    ], 0)
                    exp_inf.copy_(torch.amax(norm_buf, 0, keepdim=False))
                    bias_correction = 1 - beta1 ** step
                    clr = lr / bias_correction
                    param.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
