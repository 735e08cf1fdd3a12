# torch.optim.Adagrad: PyTorch 1.13's single-tensor update, op by op; its
# state (step, sum) is made for every parameter when the optimizer is.
import torch
from torch.optim.optimizer import Optimizer, _check_hyperparameters


class Adagrad(Optimizer):
    _group_defaults = {'foreach': None, 'maximize': False}

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *,
                 maximize=False):
        _check_hyperparameters(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                               initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize)
        super(Adagrad, self).__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group, p, self.state[p])

    def step(self, closure=None):
        return self._step_each(closure)

    def _init_state(self, group, param, state):
        state["step"] = torch.tensor(0.0)
        # The constructor's value, not the group's, as 1.13 does.
        state["sum"] = torch.full_like(param, self.defaults["initial_accumulator_value"])

    def _update(self, group, param, state):
        weight_decay = group["weight_decay"]
        state_sum = state["sum"]
        step_t = state["step"]
        step_t += 1
        step = step_t.item()
        grad = self._grad_of(group, param)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)
