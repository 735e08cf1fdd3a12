import torch

x = torch.arange(12.0).reshape(2, 6).requires_grad_()
for dim, sizes in [(1, (2, 3)), (-1, (2, -1)), (1, [3, 2]), (0, (1, 2))]:
    u = x.unflatten(dim, sizes)
    print(tuple(u.shape), u.grad_fn)
print(torch.unflatten(x, 1, (3, 2)))
print(x.t().unflatten(0, (2, 3)).shape)
print(x.unflatten(dim=1, sizes=(2, 3)).is_contiguous())

y = torch.zeros(5, 3)
src = torch.arange(6.0).reshape(2, 3)
print(y.index_copy(0, torch.tensor([0, 4]), src))
print(y.index_copy(1, torch.tensor([2, 0, 1]), torch.arange(15.0).reshape(5, 3)))
print(torch.index_copy(y, 0, torch.tensor([1, 2]), src))
r = y.index_copy_(0, torch.tensor([3, 1]), src)
print(r is y, y)

w = torch.zeros(5, 3, requires_grad=True)
s = torch.ones(2, 3, requires_grad=True)
out = w.index_copy(0, torch.tensor([0, 4]), s)
print(out.grad_fn, out.grad_fn.next_functions)
(out * torch.arange(15.0).reshape(5, 3)).sum().backward()
print(w.grad)
print(s.grad)

c = w.clone()
c.index_copy_(0, torch.tensor([2]), s[:1] * 2)
print(c.grad_fn, c.grad_fn.next_functions[0][0])
c.sum().backward()
print(w.grad)

def err(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)

err(lambda: x.unflatten(1, (2, 4)))
err(lambda: x.unflatten(1, ()))
err(lambda: x.unflatten(2, (2, 3)))
err(lambda: y.index_copy(0, torch.tensor([0, 5]), src))
err(lambda: y.index_copy(0, torch.tensor([0]), src))
err(lambda: y.index_copy(0, torch.tensor([0.0, 1.0]), src))
err(lambda: y.index_copy(0, torch.tensor([0, 1]), src.double()))
err(lambda: y.index_copy(0, torch.tensor([[0, 1]]), src))
err(lambda: y.index_copy(0, torch.tensor([-1, 1]), src))
err(lambda: w.index_copy_(0, torch.tensor([0, 4]), src))
