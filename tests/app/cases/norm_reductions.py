# Reductions: x.norm() (NormBackward1 in 1.13), prod, mean and sum along
# dimensions with keepdim, and their gradients.
import torch
x = torch.tensor([[3.0, 4.0], [1.0, 2.0]], requires_grad=True)
n = x.norm()
print(n, n.grad_fn)
print(torch.norm(torch.tensor([3.0, 4.0])))
n.backward()
print(x.grad)
x.grad = None
p = x.prod()
print(p, p.grad_fn)
p.backward()
print(x.grad)
x.grad = None
m = x.mean(dim=0)
s = x.sum(dim=1, keepdim=True)
print(m, m.grad_fn)
print(s, s.grad_fn)
(m.sum() + s.sum()).backward()
print(x.grad)
print(x.sum(-1), x.mean(1, keepdim=True).shape)
