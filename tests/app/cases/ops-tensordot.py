import torch
torch.manual_seed(7)
a = torch.randn(2, 3, 4, requires_grad=True)
b = torch.randn(3, 4, 5, requires_grad=True)
c = torch.tensordot(a, b)
print(c)
print(c.grad_fn.name(), c.grad_fn._saved_self_sym_sizes, c.grad_fn.next_functions[0][0].name())
mm = c.grad_fn.next_functions[0][0]
print([f[0].name() for f in mm.next_functions])
c.sum().backward()
print(a.grad[1], b.grad[:, :, 0], sep="\n")
d = torch.tensordot(a, b.transpose(0, 1), dims=([1, 2], [1, 0]))
print(d, torch.allclose(c, d))
e = torch.tensordot(a, torch.randn(4, 2), dims=1)
print(e.shape, e.grad_fn.name())
f = torch.tensordot(torch.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(3, 2), dims=([0, 1], [1, 0]))
print(f, f.shape)
g = torch.tensordot(torch.ones(3), torch.ones(4), dims=0)
print(g.shape, g.sum())
# a dim of size 1 against a wider one is summed first
h = torch.tensordot(torch.ones(2, 1, requires_grad=True), torch.arange(6.0).reshape(3, 2), dims=([1], [0]))
print(h, h.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
for bad in [lambda: torch.tensordot(a, b, dims=-1),
            lambda: torch.tensordot(a, b, dims=([1, 2], [0])),
            lambda: torch.tensordot(a, b, dims="x")]:
    try:
        bad()
    except RuntimeError as err:
        print("RuntimeError:", err)
torch.tensordot(a, b, dims=([0], [2]))
