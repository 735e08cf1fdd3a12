import torch
import torch.nn.functional as F

x = torch.arange(1.0, 13.0).reshape(1, 2, 6).requires_grad_()
for pad, mode in [((1, 2), 'constant'), ((2, 1), 'reflect'), ((3, 2), 'replicate'),
                  ((-1, 2), 'constant'), ((-2, -1), 'constant'), ((1, 1, 1, 0), 'constant'),
                  ((-1, 1), 'reflect'), ((1, 1), 'circular')]:
    y = F.pad(x, pad, mode=mode)
    print(pad, mode, tuple(y.shape))
    print(y.detach() if mode == 'circular' else y)
    if mode != 'circular':
        print(y.grad_fn)
    x.grad = None
    (y * torch.arange(float(y.numel())).reshape(y.shape)).sum().backward()
    print(x.grad)

img = torch.arange(12.0).reshape(1, 1, 3, 4).requires_grad_()
r = F.pad(img, (1, 2, 2, 1), mode='reflect')
print(r, r.grad_fn)
r.pow(2).sum().backward()
print(img.grad)
print(F.pad(img, (1, 1, 1, 1), mode='replicate').grad_fn)
print(F.pad(img, (1, 1, 1, 1), value=-1.5))
print(F.pad(torch.ones(2, 2, dtype=torch.long), (1, 1), value=2.5))
print(F.pad(torch.ones(2, 3), [1, 1]).shape)

# double backward through the constant pad
z = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
p = F.pad(z, (1, 1, 0, 1), value=3.0)
g, = torch.autograd.grad((p ** 3).sum(), z, create_graph=True)
print(g.detach())
g.sum().backward()
print(z.grad)

def err(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)

t = torch.ones(2, 3, 4)
err(lambda: F.pad(t, (1,)))
err(lambda: F.pad(t, (1, 1, 1, 1, 1, 1, 1, 1)))
err(lambda: F.pad(t, (1, -4)))
err(lambda: F.pad(t, (1, 1), mode='foo'))
err(lambda: F.pad(torch.ones(3), (1, 2), mode='reflect'))
err(lambda: F.pad(torch.ones(1, 2, 3), (3, 1), mode='reflect'))
err(lambda: F.pad(torch.ones(1, 2, 3), (1, 1), mode='reflect', value=1.0))
err(lambda: F.pad(torch.ones(1, 2, 3), (4, 1), mode='circular'))
