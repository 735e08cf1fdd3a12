# repeat_interleave (IndexSelectBackward0) and meshgrid (expanded views), as PyTorch 1.13 builds them.
import torch
x = torch.arange(6.0).reshape(2, 3).requires_grad_()
r = x.repeat_interleave(2, dim=0); print(r, r.grad_fn, r.grad_fn.next_functions)
r2 = x.repeat_interleave(2); print(r2, r2.grad_fn, r2.grad_fn.next_functions)
r3 = torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0); print(r3)
(r3 * torch.arange(9.).reshape(3, 3)).sum().backward(); print(x.grad)
print(torch.repeat_interleave(torch.tensor([1, 2, 3]), 2), torch.repeat_interleave(torch.tensor([2, 1])))
print(x.repeat_interleave(torch.tensor(3), dim=-1).shape)
print(torch.repeat_interleave(torch.ones(2, 2), 3).shape, torch.tensor(5.).repeat_interleave(2))
def show(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", e)
show(lambda: torch.repeat_interleave(torch.ones(2), torch.tensor([1, -1])))
show(lambda: torch.repeat_interleave(torch.ones(2), -1))
show(lambda: torch.repeat_interleave(torch.ones(2), torch.tensor([1, 2, 3])))
show(lambda: torch.repeat_interleave(torch.ones(2, 2), 2, dim=2))
a, b = torch.meshgrid(x[0], x[1], indexing='ij'); print(a, a.grad_fn, a.grad_fn.next_functions, b.grad_fn)
print(torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5])))
gx, gy = torch.meshgrid([torch.tensor([1., 2.]), torch.tensor([3., 4., 5.])], indexing='xy')
print(gx, gy, gx.shape)
print([g.shape for g in torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing='xy')])
(a * b).sum().backward(); print(x.grad)
show(lambda: torch.meshgrid(torch.ones(2), indexing='yx'))
