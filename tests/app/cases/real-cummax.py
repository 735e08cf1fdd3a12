# Running maxima and minima: the best score so far, a drawdown, a
# monotone envelope.
import torch

prices = torch.tensor([3.0, 5.0, 4.0, 5.0, 7.0, 6.0, 2.0], requires_grad=True)
peak, where = torch.cummax(prices, dim=0)
print(peak)
print(where)
g = peak.grad_fn
print(g.name(), g._saved_dim, g._saved_self is prices, g._saved_indices.equal(where))
drawdown = (prices - peak) / peak
print(drawdown)
drawdown.min().backward()
print(prices.grad)

torch.manual_seed(3)
x = torch.randn(3, 4, requires_grad=True)
r = x.cummin(1)
print(r)
print(type(r).__name__, r.values.grad_fn.name(), r.indices.dtype)
values, indices = x.cummax(dim=-2)
(values * torch.arange(12.0).view(3, 4)).sum().backward()
print(x.grad)

# Ties move to the later element; a NaN stays; ints and bools.
print(torch.tensor([1.0, float('nan'), 3.0, float('nan'), 0.0]).cummax(0))
print(torch.tensor([2, 1, 2, 3, 3]).cummax(0))
print(torch.tensor([True, False, True]).cummin(0))
print(torch.cummax(torch.tensor(3.0), 0))
print(torch.cummin(torch.zeros(2, 0), 1))

# Second order: the gradient is scattered back (ScatterAddBackward0).
y = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64, requires_grad=True)
gy, = torch.autograd.grad(y.cummax(0)[0].pow(2).sum(), y, create_graph=True)
print(gy, gy.grad_fn.name())
print(torch.autograd.grad(gy.sum(), y))
print(torch.autograd.gradcheck(lambda t: t.cummin(0)[0], (y,)))
try:
    x.cummax(2)
except IndexError as e:
    print("IndexError:", e)
