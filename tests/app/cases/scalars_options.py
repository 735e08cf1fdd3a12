# The options the scalar graph reads from the record: gelu's
# approximate='tanh' (and 'none'), nll_loss's and cross_entropy's
# ignore_index (a class among the targets, and the default -100), nll_loss
# of an image (NllLoss2D), and pow, fmod, remainder and xlogy with a number.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, -0.75, 0.25]], requires_grad=True)
a = F.gelu(x, approximate='tanh')
b = F.gelu(x, approximate='none')
logits = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [2.0, 0.0, -0.5]], requires_grad=True)
target = torch.tensor([1, 2, 1])
logp = F.log_softmax(logits, 1)
c = F.nll_loss(logp, target, ignore_index=1)
d = F.nll_loss(logp, torch.tensor([0, -100, 2]), reduction='sum')
e = F.cross_entropy(logits, target, ignore_index=2)
loss = (a * b).sum() + c + d + e
loss.backward()
print(a, b, sep='\n')
print(c, d, e)
print(x.grad, logits.grad, sep='\n')
img = torch.tensor([[[[0.5, -1.0], [2.0, 0.25]], [[1.5, 0.0], [-0.5, 1.0]], [[0.0, 2.0], [1.0, -1.0]]]], requires_grad=True)
f = F.nll_loss(F.log_softmax(img, 1), torch.tensor([[[0, 2], [1, 1]]]), ignore_index=1)
g = torch.pow(2.0, x) + torch.fmod(x, 0.75) + torch.remainder(x, 1.25) + torch.xlogy(2.0, x.abs())
(f + g.sum()).backward()
print(f, g, img.grad, x.grad, sep='\n')
