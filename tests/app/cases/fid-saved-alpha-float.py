# _saved_alpha / _saved_beta show the number as the script gave it: 2.0 or 2.
import torch
x = torch.ones(2, requires_grad=True)
y = torch.ones(2, requires_grad=True)
print(x.add(y, alpha=2.0).grad_fn._saved_alpha)
print(x.add(y, alpha=2).grad_fn._saved_alpha)
print(x.add(y).grad_fn._saved_alpha)
print(x.sub(y, alpha=0.5).grad_fn._saved_alpha)
print(x.sub(y, alpha=3).grad_fn._saved_alpha)
print(torch.rsub(x, y, alpha=3.0).grad_fn._saved_alpha)
print(torch.rsub(x, y).grad_fn._saved_alpha)
m = torch.ones(2, 2, requires_grad=True)
f = torch.addmm(torch.ones(2, 2), m, torch.ones(2, 2), beta=1.0, alpha=2.0).grad_fn
print(f._saved_beta, f._saved_alpha)
f = torch.addmm(torch.ones(2, 2), m, torch.ones(2, 2), beta=3, alpha=0.5).grad_fn
print(f._saved_beta, f._saved_alpha)
f = torch.addmm(torch.ones(2, 2), m, torch.ones(2, 2)).grad_fn
print(f._saved_beta, f._saved_alpha)
