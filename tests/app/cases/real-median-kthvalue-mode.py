# torch.median (with and without dim), kthvalue and mode: values, the index
# picked among equal values as PyTorch 1.13's CPU kernels pick it, the
# return_types namedtuples, gradients (shared evenly for median(), to the
# picked element otherwise), saved arguments and errors.
import torch

x = torch.tensor([[3., 1., 3., 2., 1.], [5., 5., 5., 0., 4.], [2., 7., 2., 7., 2.]],
                 requires_grad=True)
m = torch.median(x, 1)
print(m)
print(m.values.grad_fn, m.values.grad_fn._saved_dim, m.values.grad_fn._saved_keepdim,
      m.values.grad_fn._saved_indices, m.values.grad_fn._saved_self_sizes)
values, indices = x.median(0, keepdim=True)
print(values, indices)
k = torch.kthvalue(x, 2, 1)
print(k, k[0] is k.values)
print(torch.kthvalue(x, 3, 0, True))
print(x.kthvalue(4))
mo = torch.mode(x, 1)
print(mo, mo.values.grad_fn)
print(torch.mode(x, 0), x.mode())
med = x.median()
print(med, med.grad_fn, med.grad_fn._saved_result)

(m.values.sum() + values.sum() * 2 + k.values.sum() * 3 + mo.values.sum() * 4 + med * 10).backward()
print(x.grad)

z = torch.tensor([4., 1., 4., 1.], requires_grad=True)
z.median().backward()
print(z.grad)
y = torch.tensor([1., float('nan'), 3., float('nan')], requires_grad=True)
print(y.median(), y.median(0), torch.kthvalue(y, 3), torch.mode(y))
y.median().backward()
print(y.grad)
print(torch.tensor([2., float('nan'), 1.], requires_grad=True).max())

torch.manual_seed(3)
r = torch.randint(0, 5, (6, 23)).float()
for kk in (1, 4, 9, 12, 17, 23):
    print(kk, torch.kthvalue(r, kk, 1).indices.tolist())
print(torch.median(r, 1).indices.tolist(), torch.mode(r[:, :16], 1).indices.tolist())

w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
g, = torch.autograd.grad((torch.kthvalue(w, 2, 1).values ** 2).sum(), w, create_graph=True)
print(g)
print(torch.autograd.grad(g.sum(), w))

a = torch.tensor(5., requires_grad=True)
print(a.median(), a.median(0), torch.kthvalue(a, 1), torch.mode(a))
i = torch.tensor([3, 1, 2, 2])
print(i.median(), i.median(0), torch.mode(i), torch.kthvalue(i, 4))
print(torch.median(torch.tensor([])), torch.zeros(0, 3).median(1))
for f in [lambda: torch.kthvalue(x, 6, 1), lambda: torch.kthvalue(x, 0, 1),
          lambda: torch.median(x, 2), lambda: torch.mode(torch.zeros(0, 3), 0),
          lambda: torch.zeros(0, 3).median(0)]:
    try:
        print(f())
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
print(torch.tensor([True, False, True]).mode(0))
