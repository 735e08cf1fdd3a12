import torch
import torch.nn.functional as F

x = torch.arange(2 * 2 * 5 * 7, dtype=torch.float32).reshape(2, 2, 5, 7).mul(0.7).sin().requires_grad_()

p, i = F.max_pool2d(x, 2, return_indices=True)
print(p.shape, p.grad_fn.name(), i.dtype)
print(p[1, 0], i[1, 0])
p.sum().backward()
print(x.grad[1, 0])
x.grad = None

for kw in [dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=(1, 2), dilation=2),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, stride=[]),
           dict(kernel_size=3, padding=1, ceil_mode=True, dilation=(1, 2))]:
    out, idx = F.max_pool2d(x, return_indices=True, **kw)
    print(kw, out.shape, idx[0, 1].tolist())

a = F.avg_pool2d(x, 3, 2, 1)
print(a.shape, a.grad_fn.name())
print(a[0, 1])
a.sum().backward()
print(x.grad[0, 1])
x.grad = None
print(F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)[0, 1])
print(F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)[0, 1])
print(F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)[0, 1])
print(F.avg_pool2d(x, (2, 3), divisor_override=4)[1, 1])

aa = F.adaptive_avg_pool2d(x, (3, 4))
print(aa.shape, aa.grad_fn.name())
print(aa[0, 0])
aa.sum().backward()
print(x.grad[0, 0])
x.grad = None
print(F.adaptive_avg_pool2d(x, 1).grad_fn.name(), F.adaptive_avg_pool2d(x, (None, 3)).shape)
am, ai = F.adaptive_max_pool2d(x, (2, 3), return_indices=True)
print(am.grad_fn.name(), am[1, 1], ai[1, 1])

print(F.max_pool2d(x[0], 2).shape, F.max_pool2d(x[0], 2).grad_fn.name())

s = torch.arange(2 * 3 * 9, dtype=torch.float64).reshape(2, 3, 9).cos().requires_grad_()
m1 = F.max_pool1d(s, 3, 2, 1)
print(m1, m1.grad_fn.name())
m1v, m1i = F.max_pool1d(s, 2, return_indices=True)
print(m1i[0])
a1 = F.avg_pool1d(s, 4, 2, 1, ceil_mode=True, count_include_pad=False)
print(a1)
(m1.sum() + a1.sum()).backward()
print(s.grad)
print(F.adaptive_avg_pool1d(s, 4)[0], F.adaptive_max_pool1d(s, 4)[0])
print(torch.max_pool2d(x, 2).grad_fn.name(), torch.avg_pool1d(s, 3).shape)

n = torch.tensor([[[[1.0, float('nan'), 3.0, 2.0], [0.0, 5.0, float('nan'), -1.0]]]])
v, k = F.max_pool2d(n, 2, return_indices=True)
print(v, k)

q = torch.arange(-8, 8).reshape(1, 1, 4, 4)
print(F.avg_pool2d(q, 2), F.avg_pool2d(q, 3, 1, 1, count_include_pad=False), F.avg_pool2d(q, 2, divisor_override=3))
