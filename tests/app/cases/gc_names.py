# grad_fn names PyTorch 1.13 gives that differ from the obvious composition:
# the gradient of a convolution under create_graph (ConvolutionBackwardBackward0),
# HuberLoss, nll_loss over (N, C, d...) (NllLoss2DBackward0), addmm with beta
# and alpha, and the nodes whose name() carries torch::autograd::.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


x = torch.randn(1, 2, 5, dtype=torch.double, requires_grad=True)
w = torch.randn(3, 2, 2, dtype=torch.double, requires_grad=True)
for transposed in [False, True]:
    if transposed:
        y = F.conv_transpose1d(x, w.transpose(0, 1).contiguous().requires_grad_(), stride=2)
    else:
        y = F.conv1d(x, w, padding=1)
    gx, = torch.autograd.grad(y.sum(), x, create_graph=True)
    print(name(y), name(gx))
    gx.sum().backward()
x2 = torch.randn(1, 1, 4, 4, requires_grad=True)
w2 = torch.randn(2, 1, 2, 2, requires_grad=True)
conv = torch.nn.Conv2d(1, 2, 2)
y = conv(x2)
gx, gw = torch.autograd.grad(y.pow(2).sum(), (x2, conv.weight), create_graph=True)
print(name(y), name(gx), name(gw))
print(torch.autograd.grad(gx.sum(), x2, allow_unused=True))

a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(3, 4)
for red in ['mean', 'sum', 'none']:
    loss = F.huber_loss(a, b, reduction=red, delta=0.5)
    print(name(loss), loss.shape)
loss = torch.nn.HuberLoss(delta=2.0)(a, b)
print(loss, name(loss))
loss.backward()
print(a.grad)
with torch.no_grad():
    print(F.huber_loss(a, b))
print(F.huber_loss(a, torch.randn(4), reduction='none').grad_fn.next_functions[0][0].name())
try:
    F.huber_loss(a, b, delta=0.0)
except RuntimeError as e:
    print(e)

logits = torch.randn(2, 3, 4, requires_grad=True)
t = torch.tensor([[0, 1, 2, 1], [2, 2, 0, 1]])
for red in ['mean', 'sum']:
    print(name(F.cross_entropy(logits, t, reduction=red)),
          name(F.nll_loss(logits.log_softmax(1), t, reduction=red)))
print(name(F.cross_entropy(logits[:, :, 0], t[:, 0])))
img = torch.randn(2, 3, 2, 2, requires_grad=True)
loss = F.cross_entropy(img, torch.zeros(2, 2, 2, dtype=torch.long), reduction='none')
print(name(loss), loss.shape)
loss.sum().backward()
print(img.grad.sum(dim=(0, 2, 3)))

m = torch.randn(4, requires_grad=True)
p = torch.randn(2, 3, requires_grad=True)
q = torch.randn(3, 4, requires_grad=True)
out = torch.addmm(m, p, q, beta=0.5, alpha=2)
print(name(out), out.grad_fn._saved_beta, out.grad_fn._saved_alpha)
print([name(g) for g in torch.autograd.grad(out.sum(), (m, p, q), create_graph=True)])
out.sum().backward()
print(m.grad, p.grad, q.grad, sep='\n')
print(torch.addmm(m, p, q, beta=0).sub(p @ q).abs().max().item() < 1e-6)
print(torch.addmm(m.expand(2, 4), p, q, alpha=0.0).sub(m).abs().max().item())

leaf = torch.ones(2, requires_grad=True)
acc = (leaf * 2).grad_fn.next_functions[0][0]
print(acc.name(), type(acc).__name__ if False else '', acc)
z = torch.zeros(3)
z[1:] = leaf
print(z.grad_fn.name())
print(F.pad(torch.ones(1, 1, 3, requires_grad=True), (1, 1), mode='circular').grad_fn.name())

# nll_loss over 3 or more than 4 dims goes through nll_loss2d on a view.
for shape, tshape in [((2, 3, 2), (2, 2)), ((2, 3, 2, 2), (2, 2, 2)), ((2, 3, 2, 1, 2), (2, 2, 1, 2))]:
    x = torch.randn(*shape, requires_grad=True)
    t = torch.randint(0, 3, tshape)
    for red in ['mean', 'none']:
        loss = F.cross_entropy(x, t, reduction=red, ignore_index=1)
        print(shape, red, name(loss), [name_of[0].name() for name_of in loss.grad_fn.next_functions],
              tuple(loss.shape))

# A pool's gradient taken with create_graph depends on the pool's input (with
# a zero derivative), as PyTorch's *_backward ops take self.
x = torch.randn(1, 2, 4, 4, requires_grad=True)
pools = [('max_pool2d', lambda t: F.max_pool2d(t, 2)),
         ('avg_pool2d', lambda t: F.avg_pool2d(t, 2, stride=1)),
         ('adaptive_avg_pool2d', lambda t: F.adaptive_avg_pool2d(t, 3)),
         ('adaptive_max_pool2d', lambda t: F.adaptive_max_pool2d(t, 3)),
         ('max_pool1d', lambda t: F.max_pool1d(t.flatten(2), 3)),
         ('avg_pool1d', lambda t: F.avg_pool1d(t.flatten(2), 3))]
for label, f in pools:
    g, = torch.autograd.grad(f(x).pow(2).sum(), x, create_graph=True)
    h, = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    print(label, g.grad_fn.name(), h.grad_fn.name() if h.grad_fn is not None else None, h.requires_grad)
    (g.sum() + h.sum()).backward(retain_graph=True)
    print(x.grad.sum(dim=(2, 3)))
    x.grad = None
    gg, = torch.autograd.grad(h.sum(), x, allow_unused=True)
    print(gg if gg is None else gg.abs().sum())

# Under create_graph a convolution's three gradients are ConvolutionBackwardBackward0
# outputs, the bias's too (it depends on x and w with a zero derivative).
x = torch.randn(1, 2, 5, requires_grad=True)
w = torch.randn(3, 2, 2, requires_grad=True)
b = torch.randn(3, requires_grad=True)
for label, f in [('conv1d', lambda: F.conv1d(x, w, b, padding=1)),
                 ('conv_t', lambda: F.conv_transpose1d(x, w.transpose(0, 1), b, stride=2))]:
    y = f()
    for loss in [y.sum(), y.pow(2).sum()]:
        gs = torch.autograd.grad(loss, (x, w, b), create_graph=True, allow_unused=True)
        print(label, [g.grad_fn.name() if g is not None and g.grad_fn is not None else None for g in gs])
        s = sum(g.pow(2).sum() for g in gs if g is not None)
        s.backward()
        print(x.grad.sum().item() != 0, w.grad.abs().sum() > 0, b.grad)
        x.grad = w.grad = b.grad = None
print(torch.autograd.gradgradcheck(lambda x, w, b: F.conv1d(x, w, b), (x.double(), w.double(), b.double())))
