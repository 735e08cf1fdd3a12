# jacobian/hessian with vectorize=True and strategy="forward-mode": the same
# values as reverse mode, shaped as PyTorch 1.13 shapes them (forward mode nests
# lists), and the errors of unsupported combinations.
import torch
from torch.autograd.functional import jacobian, hessian
x = torch.tensor([0.5, 1.0, -2.0], dtype=torch.float64)
y = torch.tensor([3.0, 4.0], dtype=torch.float64)
f = lambda a, b: (a.sin().sum() * b, a * 2)
print(jacobian(f, (x, y), vectorize=True))
print(jacobian(f, (x, y), vectorize=True, strategy="forward-mode"))
print(jacobian(lambda a: a.exp(), x, vectorize=True, strategy="forward-mode"))
print(hessian(lambda a: (a ** 3).sum(), x, vectorize=True))
for call in [lambda: jacobian(f, (x, y), strategy="forward-mode"),
             lambda: jacobian(f, (x, y), vectorize=True, strict=True),
             lambda: jacobian(f, (x, y), vectorize=True, strategy="forward-mode", create_graph=True)]:
    try:
        call()
    except (RuntimeError, NotImplementedError) as e:
        print(type(e).__name__, e)
