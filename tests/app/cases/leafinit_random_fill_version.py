# cuda: cpu-only, the error names the CPU tensor type ("torch.FloatTensor")
# In-place random fills (normal_, uniform_, bernoulli_, random_, nn.init)
# count one version each, as in PyTorch (written, then bumped, so that the
# run record sees the values drawn); a tensor saved for backward and drawn
# again makes backward fail; through .data it does not.
import torch
torch.manual_seed(0)
w = torch.zeros(3, requires_grad=True)
w.data.uniform_(-1, 1)
print(w, w._version)
c = torch.zeros(2)
c.normal_()
c.uniform_()
c.bernoulli_(0.5)
c.exponential_()
c.random_(0, 5)
print(c._version)
d = torch.zeros(2, 2, requires_grad=True)
with torch.no_grad():
    d.normal_()
torch.nn.init.normal_(d)
torch.nn.init.kaiming_uniform_(d)
print(d._version)
a = torch.ones(2, requires_grad=True)
b = a.sigmoid()
b.data.normal_()
b.sum().backward()
print(a.grad)
e = a.sigmoid()
with torch.no_grad():
    e.normal_()
print(e._version)
e.sum().backward()
