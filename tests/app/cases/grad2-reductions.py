# The backward formulas of cumsum, norm and binary_cross_entropy_with_logits
# written as PyTorch 1.13 writes them, so the gradient of a gradient goes
# through the same grad_fns (FlipBackward0, MaskedFillBackward0,
# DivBackward1), with the same values.
import torch

torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
z = torch.tensor([[0., 0., 0.], [1., 2., 2.]], requires_grad=True)
w = torch.arange(6.).reshape(2, 3)
for name, f, inp in [("p2", lambda t: t.norm(), x), ("p3", lambda t: t.norm(p=3), x),
                     ("p1.5", lambda t: t.norm(p=1.5), x), ("dim", lambda t: t.norm(dim=1), x),
                     ("dimk", lambda t: t.norm(p=3, dim=0, keepdim=True), x),
                     ("zero", lambda t: t.norm(dim=1), z), ("p1", lambda t: t.norm(p=1), x)]:
    g, = torch.autograd.grad(f(inp).sum(), inp, create_graph=True)
    print(name, g, g.grad_fn.name(), [type(n).__name__ for n, _ in g.grad_fn.next_functions])
    print(torch.autograd.grad((g * w).sum(), inp))
y = torch.tensor([[1., -3., 3.], [2., 0.5, -1.]], requires_grad=True)
for name, f in [("inf", lambda t: t.norm(p=float('inf'))), ("infdim", lambda t: t.norm(p=float('inf'), dim=1))]:
    g, = torch.autograd.grad(f(y).sum(), y, create_graph=True)
    print(name, g, g.grad_fn.name(), [type(n).__name__ for n, _ in g.grad_fn.next_functions])
t = torch.rand(2, 3)
for red in ["mean", "sum"]:
    tt = t.clone().requires_grad_()
    l = torch.nn.functional.binary_cross_entropy_with_logits(x, tt, reduction=red)
    gx, gt = torch.autograd.grad(l, (x, tt), create_graph=True)
    print(red, gx.grad_fn.name(), gt.grad_fn.name(), [type(n).__name__ for n, _ in gx.grad_fn.next_functions])
    print(torch.autograd.grad((gx * w).sum() + (gt * gt).sum(), (x, tt)))
for dim in [0, 1]:
    c = torch.cumsum(x, dim) ** 2
    g, = torch.autograd.grad((c * w).sum(), x, create_graph=True)
    print(g, g.grad_fn.name(), [type(n).__name__ for n, _ in g.grad_fn.next_functions])
    print(torch.autograd.grad((g * g).sum(), x))
one = torch.tensor([2.], requires_grad=True)
g, = torch.autograd.grad(torch.cumsum(one, 0).sum() * 3, one, create_graph=True)
print(g, g.grad_fn)
