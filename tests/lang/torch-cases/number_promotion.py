# Python numbers with int, float64 and bool tensors on either side of an operator: type
# promotion, the scalar forms (x ** 2, 10 - x) and their grad_fn names, add/sub with alpha.
import torch
i = torch.tensor([1, 2, 3])
print(10 - i, 2.5 - i, i ** 2, i ** 0.5, i ** 2.0, 2 ** i, 2.0 ** i, i ** i)
print(i - 1.5, i * True)
f = torch.tensor([1., 2.], dtype=torch.float64)
print(f * 2, 2 - f, f ** 2, 1 / f, f / i[:2], f + i[:2])
print(torch.pow(i, 2), i.pow(0.5), torch.rsub(i, 2) if hasattr(torch, 'rsub') else 0)
b = torch.tensor([True, False])
print(b + b, b * 2, b + 1.5, b.sum(), b & True, b | False)
z = torch.tensor(2.)
print(z * i, i * z, z ** i, i ** z, torch.tensor(2) * f)
x = torch.tensor([1., 2.], requires_grad=True)
print((x ** torch.tensor(2.)).grad_fn, (torch.tensor(2.) ** x).grad_fn, (x ** 0).grad_fn)
print(x.add(1, alpha=2) if False else x.add(torch.ones(2), alpha=2))
print(torch.sub(x, 1, alpha=3), torch.sub(x, torch.ones(2), alpha=3).grad_fn)
