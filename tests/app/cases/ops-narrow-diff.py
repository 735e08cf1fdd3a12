import torch
x = torch.arange(12.0).reshape(3, 4).requires_grad_()
n = x.narrow(1, 1, 2)
print(n, n.grad_fn.name())
s = torch.select(x, 0, 2)
print(s, s.grad_fn.name(), s.grad_fn._saved_index, s.grad_fn._saved_dim)
print(torch.narrow(x, -1, -2, 2), x.select(1, 2))
(n.sum() + 2 * s.sum()).backward()
print(x.grad)
d = torch.diff(x)
print(d, d.grad_fn.name(), [f[0].name() for f in d.grad_fn.next_functions])
print(x.diff(n=2, dim=0))
print(torch.diff(x, dim=0, prepend=torch.zeros(1, 4), append=torch.ones(2, 4)))
print(torch.diff(torch.tensor([1, 4, 9, 16]), n=3))
print(torch.diff(torch.tensor([True, False, False, True])))
print(torch.diff(x, n=5), torch.diff(x, n=0).grad_fn)
t = torch.tensor([0.0, 1.0, 4.0, 9.0], requires_grad=True)
v = t.diff()
v.backward(torch.tensor([1.0, 10.0, 100.0]))
print(v, t.grad)
for bad in [lambda: x.narrow(1, 2, 3), lambda: x.narrow(1, -5, 1), lambda: x.select(0, 3),
            lambda: torch.tensor(2.0).select(0, 0), lambda: torch.tensor(2.0).narrow(0, 0, 1),
            lambda: torch.diff(torch.tensor(1.0)), lambda: torch.diff(x, prepend=torch.zeros(4))]:
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
x.select(2, 0)
