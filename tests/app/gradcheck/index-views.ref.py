import torch
from torch.autograd import gradcheck
x = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=torch.float64, requires_grad=True)
def f(x):
    y = torch.log_softmax(x, dim=1)
    z = x.index_select(1, torch.tensor([2, 0]))
    p = torch.softmax(x * 0.5, dim=0)
    return (y[0, 1] + (z * z).sum() + x[1].sum() * 2 + x[:, 1:].sum() + p[1, 2]
            + torch.nn.functional.cross_entropy(x, torch.tensor([0, 2])))
print("x", "ok" if gradcheck(f, (x,), raise_exception=False) else "DIFFERS")
