# Tensor hooks: two on one tensor run in the order registered, each seeing
# the previous one's result; a hook returning None changes nothing; a hook on
# a leaf changes what AccumulateGrad writes.
import torch

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 2
z = y.exp().sum()


def double_it(grad):
    return grad * 2


def log_it(grad):
    print("y's gradient:", grad)


def plus_one(grad):
    return grad + 1


y.register_hook(double_it)
y.register_hook(log_it)
y.register_hook(plus_one)
x.register_hook(lambda grad: grad.clamp(max=5.0))
z.backward()
print(x.grad)
