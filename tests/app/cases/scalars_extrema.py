# max and min over all elements and over a dim, amax and amin (with ties):
# each opens as a scalar graph, the gradient going to the element max(dim)
# took, or shared evenly among the tied extrema for max(), amax and amin.
import torch

x = torch.tensor([[1.0, 3.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
a = x.max()
b, bi = x.max(dim=1)
c = x.amax(dim=0)
d = x.amin(1, keepdim=True)
e = x.min()
f, fi = torch.min(x, 0)
g = torch.tensor([2.0, 2.0, -1.0], requires_grad=True)
h = g.amax()
loss = a + b.sum() * 2 + (c * torch.tensor([1.0, 2.0, 3.0])).sum() + d.sum() + e + (f * f).sum()
loss = loss + h * 3
loss.backward()
print(a, b, bi)
print(c, d)
print(e, f, fi)
print(loss)
print(x.grad)
print(g.grad)
