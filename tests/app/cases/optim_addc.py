# torch.addcmul / addcdiv as PyTorch 1.13 records them: AddcmulBackward0 and
# AddcdivBackward0 with three edges, broadcast gradients, gradcheck and
# gradgradcheck of both, integer addcmul.
import torch
torch.manual_seed(0)
s = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
a = torch.randn(3, dtype=torch.double, requires_grad=True)
b = (torch.randn(2, 1, dtype=torch.double) + 3).requires_grad_()
y = torch.addcmul(s, a, b, value=0.5)
print(y, y.grad_fn, y.grad_fn.next_functions)
z = torch.addcdiv(s, a, b, value=-2)
print(z, z.grad_fn)
(y.sum() + (z * z).sum()).backward()
print(s.grad, a.grad, b.grad)
print(torch.autograd.gradcheck(lambda s, a, b: torch.addcdiv(s, a, b, value=0.3), (s, a, b)))
print(torch.autograd.gradgradcheck(lambda s, a, b: torch.addcmul(s, a, b, value=0.3), (s, a, b)))
print(torch.autograd.gradgradcheck(lambda s, a, b: torch.addcdiv(s, a, b, value=0.3), (s, a, b)))
w = torch.ones(3, requires_grad=True)
print(torch.addcmul(w, torch.ones(3), torch.ones(3)).grad_fn, torch.addcmul(torch.ones(3), w, w))
i = torch.ones(2, dtype=torch.int64)
print(torch.addcmul(i, i, i, value=3))
