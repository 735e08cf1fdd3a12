# addcmul, addcdiv, clamp (min, max, both), where (a number on one side
# too), lerp (a number or a tensor weight), and the binary cross-entropies
# (weights, pos_weight, mean, sum and none): each opens as a scalar graph.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
y = torch.tensor([[2.0, 0.5, -1.0], [1.0, -2.0, 4.0]], requires_grad=True)
z = torch.tensor([1.0, -0.5, 2.0], requires_grad=True)
a = torch.addcmul(z, x, y, value=0.5)
b = torch.addcdiv(z, x, y, value=-2)
c = x.clamp(-0.5, 1.75)
d = torch.clamp(x, min=0.5)
e = x.clamp(max=1.5)
f = torch.where(x > y, x, y * 2)
fn = torch.where(x > 0, x, 0.0)
p = torch.sigmoid(x)
t = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.25, 1.0]])
w = torch.tensor([1.0, 2.0, 0.5])
g = F.binary_cross_entropy(p, t)
h = F.binary_cross_entropy(p, t, weight=w, reduction='sum')
i = F.binary_cross_entropy(p, t, reduction='none')
j = F.binary_cross_entropy_with_logits(x, t, weight=w)
k = F.binary_cross_entropy_with_logits(y, t, pos_weight=torch.tensor([2.0, 1.0, 0.5]), reduction='sum')
l = F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=torch.tensor([3.0, 1.0, 1.0]), reduction='none')
m = F.mse_loss(x, y, reduction='none')
n = torch.lerp(x, y, 0.25)
o = x.lerp(z, torch.tensor([[0.5], [-1.5]], requires_grad=True))
loss = g + h + j + k
for u in (a, b, c, d, e, f, fn, i, l, m, n, o):
    loss = loss + u.sin().sum()
loss.backward()
print(a, b, c, d, e, f, fn, sep='\n')
print(g, h, j, k)
print(i, l, m, n, o, sep='\n')
print(x.grad, y.grad, z.grad, sep='\n')
