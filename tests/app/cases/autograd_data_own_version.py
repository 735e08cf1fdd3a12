# .data shares the values but not the version counter: zeroing it in place
# leaves the graph's saved output valid (PyTorch's "Fundamentals of Autograd").
import torch
a = torch.ones(3, requires_grad=True)
out = a.sigmoid()
c = out.data
c.zero_()
out.sum().backward()
print(a.grad)
print(out._version, c._version)
v = c[1:]
v.add_(1)
print(c._version, v._version, out._version)
# detach() shares it: the same change is caught.
b = torch.ones(2, requires_grad=True)
o = b.exp()
d = o.detach()
d.zero_()
print(o._version, d._version)
try:
    o.sum().backward()
except RuntimeError as e:
    print(str(e)[:80])
