# nll_loss with class weights (mean, sum, none, ignore_index) and
# cross_entropy with label smoothing (with and without weights): every op
# they record opens as a scalar graph, the unkept values inside
# cross_entropy recomputed from the ops that made them.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.5, -1.0], [2.5, -0.5, 1.0]], requires_grad=True)
t = torch.tensor([0, 2, 1])
w = torch.tensor([0.5, 2.0, 1.0])
logp = F.log_softmax(x, dim=1)
l1 = F.nll_loss(logp, t, weight=w)
l2 = F.nll_loss(logp, t, weight=w, reduction='sum')
l3 = F.nll_loss(logp, t, weight=w, reduction='none')
l4 = F.nll_loss(logp, t, weight=w, ignore_index=2)
l5 = F.cross_entropy(x, t, label_smoothing=0.1)
l6 = F.cross_entropy(x, t, weight=w, label_smoothing=0.2)
m = x.masked_fill(x > 1, 0.0)
loss = l1 + l2 + (l3 * torch.tensor([1.0, -1.0, 2.0])).sum() + l4 + l5 + l6 + (m * m).sum()
loss.backward()
print(l1, l2, l4)
print(l3)
print(l5, l6)
print(m)
print(loss)
print(x.grad)
