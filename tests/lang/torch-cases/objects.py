# torch.device/dtype objects, torch.return_types.max (repr, index, unpack, iterate),
# f-string formats of 0-d tensors, grad-mode objects, optimizer param_groups,
# .T/.mT/.data, torch.Size comparisons.
import torch
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
print(x.device, x.dtype, torch.device('cpu'), repr(torch.device('cpu')))
print(torch.float32 == torch.float, torch.float32 is torch.float, torch.int64 == torch.float32)
print(x.max(0))
r = x.max(1)
print(r.values, r[1], len(r))
a, b = x.min(0)
print(a, b)
for v in x.max(1):
    print(v)
print(list(x.max(0)))
print(x.mean().item(), x.sum().tolist(), x.tolist())
print(f"{x.sum()}", f"{x.sum():.3f}", "{:.2f}".format(x.mean()), format(x.sum(), "e"))
with torch.no_grad():
    y = x * 2
print(y.requires_grad)
print(torch.is_grad_enabled())
g = torch.no_grad()
print(g)
print(torch.manual_seed(3))
print(torch.cuda.is_available())
o = torch.optim.SGD([x], lr=0.1)
print(o.param_groups)
print(x.T, x.mT, x.ndim)
print(x[0].data, x.data.requires_grad)
print(x.grad_fn, (x*2).grad_fn.next_functions[0][0].variable)
print(type(x).__name__)
print(torch.Size([1, 2]) == (1, 2), x.shape == (2, 2), x.size() == torch.Size([2, 2]))
print(x.shape[-1], list(x.shape), tuple(x.shape), x.shape.numel() if hasattr(x.shape, 'numel') else 4)
