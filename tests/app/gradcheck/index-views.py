# Paths through log_softmax, index_select, x[i], x[:, 1:], y[0, 1] and a
# cross entropy (chainrule paths follows each); every leaf agrees.
import torch
x = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=torch.float64, requires_grad=True)
y = torch.log_softmax(x, dim=1)
z = x.index_select(1, torch.tensor([2, 0]))
p = torch.softmax(x * 0.5, dim=0)
L = (y[0, 1] + (z * z).sum() + x[1].sum() * 2 + x[:, 1:].sum() + p[1, 2]
     + torch.nn.functional.cross_entropy(x, torch.tensor([0, 2])))
L.backward()
print(x.grad)
