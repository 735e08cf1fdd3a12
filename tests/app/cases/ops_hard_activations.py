# F.hardsigmoid, F.hardswish, F.mish, F.logsigmoid (rows of the op list) and
# their modules: values, grad_fn names, gradients, in place, reprs.
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([-4.0, -3.0, -1.0, 0.0, 0.5, 3.0, 3.5], requires_grad=True)
for f in [F.hardsigmoid, F.hardswish, F.mish, F.logsigmoid]:
    y = f(x)
    y.sum().backward()
    print(y)
    print(x.grad)
    x.grad = None
print(nn.Hardsigmoid()(x), nn.Hardswish()(x), nn.Mish()(x), nn.LogSigmoid()(x))
w = x * 1
F.hardswish(w, inplace=True)
print(w)
w.sum().backward()
print(x.grad)
print(nn.Hardsigmoid(), nn.Hardsigmoid(inplace=True), nn.Hardswish(), nn.Mish(inplace=True))
print(nn.Sequential(nn.Linear(2, 2), nn.Hardswish(), nn.Hardsigmoid()))
print(F.logsigmoid(torch.tensor([-200.0, 200.0], dtype=torch.float64)))
