# prod (a zero among the elements too), norms (p = 1, 2, inf, 3),
# linalg.vector_norm, var and std (unbiased or not, over dims, a correction
# past the count: inf, its gradient divided by N − correction), logsumexp,
# cumsum, cumprod (with a zero) and logcumsumexp: each opens as a scalar
# graph whose input gradients are the step's.
import torch

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
q = torch.tensor([[2.0, 0.0, -1.5], [0.5, 0.0, 3.0]], requires_grad=True)
s = torch.tensor([1.0, 0.0, -2.0, 0.5], requires_grad=True)
a = x.prod()
b = q.prod(1)
c = s.prod()
d = torch.prod(x, 0, keepdim=True)
e = x.norm()
f = x.norm(p=1, dim=1)
g = torch.norm(x, float('inf'))
h = x.norm(3, dim=0, keepdim=True)
i = torch.linalg.vector_norm(x, ord=2)
j = torch.linalg.vector_norm(x, ord=float('inf'), dim=1)
k = torch.linalg.vector_norm(s, ord=1)
l = x.var()
m = x.var(1, unbiased=False)
n = torch.std(x, 0)
o = x.std(unbiased=True)
u = torch.var(x, dim=1, unbiased=False, keepdim=True)
vc = x.var(0, correction=3)
tv = torch.tensor([2.0, -2.0, 1.0], requires_grad=True)
ties = tv.norm(float("inf"))
v = torch.logsumexp(x, 1)
w = torch.logsumexp(x, (0, 1))
y = torch.cumsum(x, 1)
z = q.cumprod(1)
zz = torch.cumprod(s, 0)
lc = torch.logcumsumexp(x, 0)
loss = 0
for t in (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, u, ties, v, w, y, z, zz, lc):
    loss = loss + t.sin().sum()
loss = loss + (vc * 0.5).sum()
loss.backward()
print(a, b, c, d, sep='\n')
print(e, f, g, h, sep='\n')
print(i, j, k, sep='\n')
print(l, m, n, o, u, vc, ties, sep="\n")
print(v, w, sep='\n')
print(y, z, zz, lc, sep='\n')
print(x.grad, q.grad, s.grad, tv.grad, sep="\n")
