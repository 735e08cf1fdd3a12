# Functions of two elements (maximum and minimum with a tie, fmax, xlogy,
# atan2, hypot, logaddexp, fmod and remainder of tensors), trace, clamp
# with tensor bounds, addmm's alpha and beta, smooth_l1_loss with beta 0,
# and more activations (hardswish, hardsigmoid, mish, sinc, deg2rad,
# rad2deg, erfinv): each opens as a scalar graph. sinc is taken off the
# integers: there sin(πx) is float32 rounding, printed differently by each
# device. A power of ones (its exponent is the record's, not found from
# the values) opens too.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
y = torch.tensor([[2.0, -1.0, 1.0], [1.0, 3.5, 4.0]], requires_grad=True)
p = torch.tensor([[0.5, 1.0, 2.0], [1.5, 3.0, 0.25]], requires_grad=True)
m = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True)
a = torch.maximum(x, y)
b = torch.minimum(x, y)
c = torch.fmax(x, p)
d = torch.xlogy(x, p)
e = torch.atan2(x, y)
f = torch.hypot(x, y)
g = torch.logaddexp(x, y)
h = torch.fmod(x, p)
i = torch.remainder(x, y)
j = torch.trace(m)
k = torch.clamp(x, min=p - 1, max=y)
l = torch.addmm(m[0], m, m, beta=0.5, alpha=-2)
n = F.smooth_l1_loss(x, y - 0.3, beta=0.0)
o = F.hardswish(x * 2)
q = F.hardsigmoid(x * 2)
r = F.mish(x)
s = torch.sinc(x + 0.125)   # off the integers, where float32 rounding of sin(πx) decides the digits
t = torch.deg2rad(x)
u = torch.rad2deg(x)
v = torch.erfinv(p / 4)
ones = torch.ones(3, requires_grad=True)
z = ones ** 3
loss = 0
for w in (a, b, c, d, e, f, g, h, i, j, k, l, n, o, q, r, s, t, u, v, z):
    loss = loss + w.sin().sum()
loss.backward()
print(a, b, c, d, e, f, g, h, i, sep='\n')
print(j, k, l, n, sep='\n')
print(o, q, r, s, t, u, v, sep='\n')
print(x.grad, y.grad, p.grad, m.grad, ones.grad, sep='\n')
