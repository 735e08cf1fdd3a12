# smooth_l1_loss and huber_loss (mean, sum and none, beta and delta, a
# target that requires grad): each opens as a scalar graph, each element's
# edge d/β inside |d| < β and sign(d) outside.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -2.0, 1.25], [3.0, 0.1, -0.4]], requires_grad=True)
t = torch.tensor([[0.0, 0.5, 1.0], [0.5, 0.0, -2.0]], requires_grad=True)
a = F.smooth_l1_loss(x, t)
b = F.smooth_l1_loss(x, t, beta=0.5, reduction='sum')
c = F.smooth_l1_loss(x, t, reduction='none')
d = F.huber_loss(x, t, delta=2.0)
e = F.huber_loss(x, t, reduction='none')
loss = a + b + (c * torch.arange(6.0).view(2, 3)).sum() + d + (e * e).sum()
loss.backward()
print(a, b, d)
print(c)
print(e)
print(x.grad)
print(t.grad)
