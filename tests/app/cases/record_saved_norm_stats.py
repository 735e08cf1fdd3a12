# What batch norm, group norm, clamp_min/max and cdist keep for backward,
# under PyTorch's _saved_ names: the statistics in PyTorch's shapes, the
# running buffers as the forward left them, the bounds as they were given.
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, 2, requires_grad=True)
bn = torch.nn.BatchNorm1d(3)
g = bn(x).grad_fn
print(g.name(), g._saved_training, g._saved_eps)
print(g._saved_result1.shape, g._saved_result1.detach())
print(g._saved_result2.shape, g._saved_result2.detach())
print(g._saved_running_mean)
print(g._saved_running_var)
print(g._saved_running_mean is bn.running_mean, g._saved_weight.shape, g._saved_input.shape)
bn.eval()
g = bn(x).grad_fn
print(g.name(), g._saved_training, g._saved_result1.shape, g._saved_result2.shape)
print(g._saved_running_mean)
bn2 = torch.nn.BatchNorm1d(3, affine=False, track_running_stats=False)
g = bn2(x).grad_fn
print(g._saved_weight, g._saved_running_mean, g._saved_running_var, g._saved_result1.shape)
gn = torch.nn.GroupNorm(3, 3)
g = gn(x).grad_fn
print(g.name(), g._saved_N, g._saved_C, g._saved_HxW, g._saved_group)
print(g._saved_result1.shape, g._saved_result1.detach())
print(g._saved_result2.shape, g._saved_result2.detach())
for f in (lambda t: torch.clamp_min(t, 0.5), lambda t: t.clamp_min(1), lambda t: t.clamp_min(1.0),
          lambda t: torch.clamp_max(t, -2), lambda t: t.clamp_max(0.25)):
    g = f(x).grad_fn
    print(g.name(), getattr(g, "_saved_min", None), getattr(g, "_saved_max", None), g._saved_self.shape)
a = torch.randn(3, 2, requires_grad=True)
b = torch.randn(4, 2, requires_grad=True)
c = torch.cdist(a, b)
g = c.grad_fn
print(g.name(), g._saved_p, g._saved_x1.shape, g._saved_x2.shape, g._saved_result.shape)
print(torch.equal(g._saved_result, c))
