# cuda: cpu-only, the float32 rounding errors of PyTorch's CPU batch-norm kernel
# BatchNorm's float32 rounding, made visible: each value's float32 error
# against the same computation in float64, in units of 1e-8 (weight
# gradients: 1e-6). PyTorch's CPU kernel sums a channel in double and its
# planes in eight float lanes; other summation orders give other errors.
import torch
import torch.nn as nn
torch.manual_seed(0)
for shape in [(8, 3, 5, 5), (16, 4), (6, 2, 3), (5, 3, 1, 1)]:
    kind = nn.BatchNorm2d if len(shape) == 4 else nn.BatchNorm1d
    x = torch.randn(*shape) * 3 + 1.7
    w = torch.randn(*shape)
    bn32, bn64 = kind(shape[1]), kind(shape[1]).double()
    with torch.no_grad():
        bn32.weight.uniform_(0.5, 1.5)
        bn64.weight.copy_(bn32.weight)
    x32, x64 = x.clone().requires_grad_(), x.double().requires_grad_()
    for step in range(2):
        y32, y64 = bn32(x32 + step), bn64(x64 + step)
        (y32 * w).sum().backward()
        (y64 * w.double()).sum().backward()
    print(shape)
    print(((y32.double() - y64) * 1e8).round().flatten()[:10])
    print(((x32.grad.double() - x64.grad) * 1e8).round().flatten()[:10])
    print(((bn32.weight.grad.double() - bn64.weight.grad) * 1e6).round())
    print(((bn32.bias.grad.double() - bn64.bias.grad) * 1e6).round())
    print(((bn32.running_mean.double() - bn64.running_mean) * 1e8).round())
    print(((bn32.running_var.double() - bn64.running_var) * 1e8).round())
bn32.eval()
bn64.eval()
y32, y64 = bn32(x32), bn64(x64)
(y32 * w).sum().backward()
(y64 * w.double()).sum().backward()
print(((y32.double() - y64) * 1e8).round().flatten()[:10])
print(((x32.grad.double() - x64.grad) * 1e8).round().flatten()[:10])
print(((bn32.weight.grad.double() - bn64.weight.grad) * 1e6).round())
