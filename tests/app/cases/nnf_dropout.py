import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.arange(1.0, 25.0).reshape(4, 6).requires_grad_()
y = F.dropout(x, 0.4)
print(y)
print(y.grad_fn)
print(y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)

print(F.dropout(x, 0.5, training=False) is x)
print(F.dropout(x, 0.0) is x)
print(F.dropout(x, 1.0))
print(F.dropout(torch.ones(20, dtype=torch.float64), 0.25))
print(torch.dropout(torch.ones(8), 0.5, True))
print(torch.dropout(torch.ones(8), 0.5, False))

z = torch.ones(2, 3, 2, 2)
print(F.dropout2d(z, 0.5))
print(F.dropout1d(torch.ones(2, 4, 3), 0.5))
print(F.dropout1d(torch.ones(4, 3), 0.5))
print(torch.rand(2))

big = F.dropout(torch.ones(1000), 0.3)
print((big == 0).sum(), big.sum())

def err(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)

err(lambda: F.dropout(x, 1.5))
err(lambda: F.dropout(x, -0.1))
