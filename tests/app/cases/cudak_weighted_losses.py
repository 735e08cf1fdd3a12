# Weighted losses: nll/cross_entropy with class weights and ignore_index,
# BCE with weight, BCE-with-logits with weight and pos_weight; values and
# gradients (also through create_graph)
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(5, 4, requires_grad=True)
t = torch.tensor([0, 3, 1, 3, 2])
w = torch.tensor([0.5, 2.0, 1.0, 3.0])
for red in ['mean', 'sum', 'none']:
    loss = F.cross_entropy(x, t, weight=w, reduction=red)
    g, = torch.autograd.grad(loss.sum(), x)
    print(red, loss.detach(), g)
loss = F.cross_entropy(x, t, weight=w, ignore_index=3)
loss.backward()
print(loss.item(), x.grad)
logp = F.log_softmax(x, dim=1)
l2 = F.nll_loss(logp, t, ignore_index=1, reduction='sum')
g, = torch.autograd.grad(l2, x, create_graph=True)
print(l2.item(), g.pow(2).sum().item())
# 2-d targets (nll_loss2d) with weights
img = torch.randn(2, 3, 2, 2, requires_grad=True)
tt = torch.tensor([[[0, 2], [1, 1]], [[2, 0], [-100, 1]]])
l3 = F.cross_entropy(img, tt, weight=torch.tensor([1.0, 0.25, 4.0]))
l3.backward()
print(l3.item(), img.grad[0, :, 0])
# binary cross entropy with logits, weight and pos_weight
z = torch.randn(3, 4, requires_grad=True)
y = torch.rand(3, 4)
bw = torch.tensor([1.0, 2.0, 0.5, 1.5])
pw = torch.tensor([3.0, 1.0, 0.5, 2.0])
for kw in [dict(weight=bw), dict(pos_weight=pw), dict(weight=bw, pos_weight=pw)]:
    l = F.binary_cross_entropy_with_logits(z, y, **kw)
    gz, = torch.autograd.grad(l, z)
    print(sorted(kw), round(l.item(), 5), gz.sum(dim=0))
lb = F.binary_cross_entropy(torch.sigmoid(z), y, weight=bw, reduction='sum')
lb.backward()
print(round(lb.item(), 4), z.grad.sum(dim=1))
