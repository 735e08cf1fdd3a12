import torch
x = torch.tensor([[3., -4., 0.], [1., 2., -2.]], requires_grad=True)
for kw in [dict(dim=1), dict(p=1, dim=0), dict(p=2, dim=1, keepdim=True), dict(p=3, dim=-1),
           dict(p=float('inf'), dim=1), dict(dim=(0, 1)), dict(p='fro', dim=0),
           dict(p=2, dim=(0, 1)), dict(dim=[0, 1], keepdim=True)]:
    n = x.norm(**kw)
    print(n, n.grad_fn.next_functions)
    n.sum().backward()
    print(x.grad)
    x.grad = None
n = torch.norm(x, dim=1)
g, = torch.autograd.grad(n.sum(), x, create_graph=True)
print(g)
z = torch.zeros(2, 2, requires_grad=True)
z.norm(dim=1).sum().backward()
print(z.grad)
