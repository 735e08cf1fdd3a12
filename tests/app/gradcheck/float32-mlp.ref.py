# gradcheck wants float64: the same function, its leaves in float64.
import torch
from torch.autograd import gradcheck
torch.manual_seed(1)
W1 = torch.randn(3, 4).double().requires_grad_()
b1 = torch.zeros(4, dtype=torch.float64, requires_grad=True)
W2 = torch.randn(4, 1).double().requires_grad_()
x = torch.randn(5, 3).double()
f = lambda W1, b1, W2: ((torch.tanh(x @ W1 + b1) @ W2) ** 2).mean()
leaves = [W1, b1, W2]
for name, i in (("W1", 0), ("b1", 1), ("W2", 2)):
    def g(v, i=i):
        args = list(leaves)
        args[i] = v
        return f(*args)
    print(name, "ok" if gradcheck(g, (leaves[i],), raise_exception=False) else "DIFFERS")
