# cummax and cummin (the gradient to the element each output took, ties
# to the later one), along either dim; cumprod of a 0-d tensor, whose dim 0
# is its one element: each opens as a scalar graph.
import torch

x = torch.tensor([[0.5, -1.0, 2.0, 2.0], [1.5, 3.0, -0.25, 3.0]], requires_grad=True)
v, i = x.cummax(1)
m = torch.cummin(x, dim=0)
n = x.cummin(-1).values
print(v, i, m.values, m.indices, n, sep='\n')
s = torch.tensor(3.0, requires_grad=True)
p = s.cumprod(0)
q = torch.cummax(s, 0).values
print(p, q)
loss = (v * torch.arange(1.0, 5.0)).sum() + (m.values * m.values).sum() + n.sin().sum() + p * q
loss.backward()
print(x.grad, s.grad)
