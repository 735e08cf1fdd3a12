# Pads (constant, reflect, replicate, circular), repeat, flip, roll, tril,
# triu, diag, diagonal, writes into a slice (x[0] = v, +=, *=), index_copy
# and copy_: each output element
# one input element (or the pad's constant), so each opens as a scalar
# graph of copies.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
v = torch.tensor([1.0, -2.0, 0.5, 4.0], requires_grad=True)
a = F.pad(x, (1, 2), value=0.5)
b = F.pad(x.unsqueeze(0), (2, 1), mode='reflect')
c = F.pad(x.unsqueeze(0), (1, 2), mode='replicate')
d = F.pad(x.view(1, 1, 2, 3), (1, 1, 1, 0), mode='reflect')
e = F.pad(x.view(1, 1, 2, 3), (0, 1, 2, 1), mode='replicate')
f = x.repeat(2, 1)
g = torch.roll(x, 1, 1)
h = x.roll(shifts=(1, -1), dims=(0, 1))
i = torch.roll(x, -4)  # no dims: the flattened tensor rolls
j = torch.flip(x, [1])
k = torch.tril(x.repeat(1, 2)[:, :3])
l = torch.triu(x, 1)
m = torch.diag(v)
n = torch.diag(x)
o = torch.diagonal(x, 1)
p = x * 1
p[0] = v[1:] * 2
q = x * 1
q[:, 1] += v[:2]
r = x * 1
r[1, 1:] *= v[2:]
s = x.index_copy(1, torch.tensor([2, 0]), v.view(2, 2))
u = x * 1
u.copy_(v[:3])
w = F.pad(x.view(1, 2, 3), (1, 2), mode='circular')
loss = 0
for t in (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, u, w):
    loss = loss + t.sin().sum()
loss.backward()
print(a)
print(b)
print(i)
print(c)
print(d)
print(e)
print(f, g, h, j, sep='\n')
print(k, l, m, n, o, sep='\n')
print(p, q, r, s, u, w, sep='\n')
print(x.grad)
print(v.grad)
