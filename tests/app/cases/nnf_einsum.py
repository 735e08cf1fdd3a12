import torch

def walk(fn, depth=0):
    if fn is None:
        print('  ' * depth + 'None')
        return
    print('  ' * depth + fn.name().replace('torch::autograd::', ''))
    for f, _ in fn.next_functions:
        walk(f, depth + 1)

a = (torch.arange(6.0) * 0.5 - 1).reshape(2, 3).requires_grad_()
b = (torch.arange(12.0) * 0.25).cos().reshape(3, 4).requires_grad_()
m = torch.arange(9.0).reshape(3, 3).requires_grad_()
v = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
u = torch.tensor([0.5, 4.0], requires_grad=True)
bx = (torch.arange(24.0) * 0.3).sin().reshape(2, 3, 4).requires_grad_()
by = (torch.arange(40.0) * 0.7).cos().reshape(2, 4, 5).requires_grad_()

cases = [
    ('ij,jk->ik', (a, b)), ('ij,jk', (a, b)), ('ij->ji', (a,)), ('ij->', (a,)),
    ('ij->j', (a,)), ('ii->i', (m,)), ('ii', (m,)), ('i,j->ij', (u, v)), ('i,i->', (v, v)),
    ('ij,ij->i', (a, a)), ('ij,ij->ij', (a, a)), ('bij,bjk->bik', (bx, by)),
    ('...ij,...jk', (bx, by)), ('bij->b...', (bx,)), ('i j , j k -> i k', (a, b)),
    ('ijk,jl,kl->il', (bx.transpose(1, 2).transpose(0, 1).reshape(4, 2, 3).transpose(1, 2)
                       .contiguous().transpose(0, 1).contiguous()[:, :, :2].transpose(0, 2)
                       .contiguous(), b[:2, :], b[:, :])),
    ('ij,kj', (a, torch.ones(1, 1))), ('ji', (a,)), ('iji->j', (bx[:, :, :2].transpose(1, 2)
                                                            .reshape(2, 2, 3)[:, :, :2],)),
]
for eq, ops in cases:
    try:
        r = torch.einsum(eq, *ops)
    except Exception as e:
        print(eq, type(e).__name__, e)
        continue
    print('==', eq, tuple(r.shape))
    print(r)
    walk(r.grad_fn)
    grads = torch.autograd.grad(r.sum() if r.dim() == 0 else (r * torch.arange(float(r.numel())).reshape(r.shape)).sum(),
                                [o for o in ops if o.requires_grad], allow_unused=True)
    for g in grads:
        print(g)

print(torch.einsum('ij,jk', [a, b]))
print(torch.einsum('ij,jk', (a.detach(), b.detach())))
print(torch.einsum('->', torch.tensor(3.0)))
print(torch.einsum('i', torch.tensor([1.0, 2.0])))

# second derivatives through bmm
x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
y = torch.einsum('ij,jk->ik', x, x)
g, = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
print(g.detach())
g.sum().backward()
print(x.grad)

for eq, ops in [('ij,jk', (a,)), ('ij', (a, b)), ('i.j', (a,)), ('...i...', (a,)), ('i1', (a,)),
                ('ijk', (a,)), ('...ijk', (a,)), ('ij->k', (a,)), ('ij->ii', (a,)),
                ('ij->i...j...', (a,)), ('ij->i.', (a,)), ('ij->i1', (a,)), ('ij,ij', (a, b)),
                ('ii', (a,)), ('...i,...i', (torch.ones(2, 3), torch.ones(4, 3)))]:
    try:
        torch.einsum(eq, *ops)
    except RuntimeError as e:
        print(eq, e)
try:
    torch.einsum('ij')
except ValueError as e:
    print(e)
