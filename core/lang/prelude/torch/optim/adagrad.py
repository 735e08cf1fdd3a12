# torch.optim.Adagrad: PyTorch 1.13's single-tensor update, op by op; its
# state (step, sum) is made for every parameter when the optimizer is.
import torch
from torch.optim.optimizer import Optimizer


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *,
                 maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= lr_decay:
            raise ValueError("Invalid lr_decay value: {}".format(lr_decay))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: {}".format(
                initial_accumulator_value))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize)
        super(Adagrad, self).__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self._state_of(p)
                state["step"] = torch.tensor(0.0)
                state["sum"] = torch.full_like(p, initial_accumulator_value)

    def _set_group_defaults(self):
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                lr = group["lr"]
                weight_decay = group["weight_decay"]
                lr_decay = group["lr_decay"]
                eps = group["eps"]
                maximize = group["maximize"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    state_sum = state["sum"]
                    step_t = state["step"]
                    step_t += 1
                    step = step_t.item()
                    grad = param.grad if not maximize else -param.grad
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    clr = lr / (1 + (step - 1) * lr_decay)
                    state_sum.addcmul_(grad, grad, value=1)
                    std = state_sum.sqrt().add_(eps)
                    param.addcdiv_(grad, std, value=-clr)
        return loss
