# In-place writes count one version each, as in PyTorch: out= (which counted
# two), scatter_, index_copy_, x[idx] = v, embedding's max_norm renorm and
# instance norm's running statistics.
import torch, torch.nn.functional as F
from torch import nn
w = torch.zeros(3, requires_grad=True)
a = torch.tensor([1.0, 2.0, 3.0])
with torch.no_grad():
    torch.add(a, a, out=w)
print(w, w._version)
w2 = torch.zeros(2, 3, requires_grad=True)
with torch.no_grad():
    w2.scatter_(1, torch.tensor([[2], [0]]), torch.tensor([[5.0], [6.0]]))
    w2.index_copy_(0, torch.tensor([1]), torch.tensor([[1.0, 2.0, 3.0]]))
    w2[torch.tensor([0]), torch.tensor([1])] = 9.0
print(w2, w2._version)
emb = nn.Embedding(3, 2, max_norm=1.0)
print(emb.weight._version)
out = emb(torch.tensor([0, 2]))
print(emb.weight._version)
inorm = nn.InstanceNorm1d(2, track_running_stats=True)
x = torch.randn(2, 2, 4)
print(inorm.running_mean._version, inorm.running_var._version)
inorm(x)
print(inorm.running_mean._version, inorm.running_var._version)
inorm(x)
print(inorm.running_mean._version, inorm.running_var._version)
o = torch.zeros(2)
torch.mul(torch.ones(2), 3, out=o)
torch.mul(o, 2, out=o)
print(o, o._version)
