# F.glu (a·σ(b), a and b the halves of a dim) along either dim, and
# F.prelu with one weight or one per channel (dim 1), as nn.PReLU: each
# opens as a scalar graph whose sums equal the step's.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0, 1.0], [1.5, 3.0, -0.25, -2.0]], requires_grad=True)
g = F.glu(x, 1)
h = F.glu(x, 0)
w = torch.tensor([0.25], requires_grad=True)
p = F.prelu(x, w)
wc = torch.tensor([0.25, 0.5, -1.0, 2.0], requires_grad=True)
q = F.prelu(x.view(2, 4, 1), wc)
print(g, h, p, q, sep='\n')
loss = (g * g).sum() + h.exp().sum() + (p * x).sum() + q.sin().sum()
loss.backward()
print(x.grad, w.grad, wc.grad, sep='\n')
