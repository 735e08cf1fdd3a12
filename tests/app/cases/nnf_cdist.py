import torch

a = torch.tensor([[0.0, 1.0], [2.0, 3.0], [1.0, -1.0]], requires_grad=True)
b = torch.tensor([[1.0, 1.0], [0.0, 0.0]], requires_grad=True)
d = torch.cdist(a, b)
print(d, d.grad_fn, d.grad_fn.next_functions)
(d * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
print(a.grad)
print(b.grad)
for p in [1.0, 3.0, 0.0, 0.5, float('inf')]:
    a.grad = None
    b.grad = None
    d = torch.cdist(a, b, p=p)
    print(p, d)
    (d * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    print(a.grad, b.grad)

x = torch.tensor([[1.0, 1.0]], requires_grad=True)
r = torch.cdist(x, x.detach())
r.sum().backward()
print(x.grad)

bx = (torch.arange(12.0) * 0.7).sin().reshape(2, 3, 2)
by = (torch.arange(8.0) * 0.3).cos().reshape(1, 4, 2)
print(torch.cdist(bx, by))
print(torch.cdist(bx.double(), by.double(), compute_mode='donot_use_mm_for_euclid_dist').dtype)

# (PyTorch 1.13 has no second derivative of cdist: "the derivative for
# '_cdist_backward' is not implemented"; Chainrule's backward is differentiable.)
z = torch.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
g, = torch.autograd.grad(torch.cdist(z, b.detach()).pow(2).sum(), z, create_graph=True)
print(g.detach())

def err(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)

err(lambda: torch.cdist(a, b[:, :1]))
err(lambda: torch.cdist(a[0], b))
err(lambda: torch.cdist(a, b, p=-1))
err(lambda: torch.cdist(a.long(), b.long()))
