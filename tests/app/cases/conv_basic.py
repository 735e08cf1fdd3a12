import torch
import torch.nn.functional as F

x = torch.arange(2 * 3 * 5 * 6, dtype=torch.float64).reshape(2, 3, 5, 6).sin().requires_grad_()
w = torch.arange(4 * 3 * 3 * 3, dtype=torch.float64).reshape(4, 3, 3, 3).cos().div(3).requires_grad_()
b = torch.tensor([0.5, -0.25, 0.0, 1.0], dtype=torch.float64, requires_grad=True)

y = F.conv2d(x, w, b)
print(y.shape, y.grad_fn.name())
print([f[0] is None for f in y.grad_fn.next_functions], len(y.grad_fn.next_functions))
print(y[1, 2])
y.pow(2).sum().backward()
print(x.grad[0, 1])
print(w.grad[3])
print(b.grad)

for kw in [dict(padding=1), dict(stride=2), dict(stride=(2, 1), padding=(0, 2)), dict(dilation=2, padding=2),
           dict(padding='same'), dict(padding='valid'), dict(padding='same', dilation=(1, 2))]:
    out = F.conv2d(x, w, b, **kw)
    print(kw, out.shape, out.sum().item() == out.sum().item(), round(out.abs().sum().item(), 2))

wg = torch.arange(6 * 1 * 2 * 2, dtype=torch.float64).reshape(6, 1, 2, 2).sub(10).div(10)
g = torch.conv2d(x, wg, None, 1, 0, 1, 3)
print(g.shape, g[0, :, 0, :3])

u = F.conv2d(x[0], w, padding=1)
print(u.shape, u.grad_fn.name())

x1 = torch.arange(2 * 3 * 8, dtype=torch.float64).reshape(2, 3, 8).cos().requires_grad_()
w1 = torch.arange(2 * 3 * 3, dtype=torch.float64).reshape(2, 3, 3).sin().requires_grad_()
y1 = F.conv1d(x1, w1, stride=2, padding=1)
print(y1, y1.grad_fn.name())
y1.sum().backward()
print(x1.grad[1])
print(w1.grad)
print(F.conv1d(x1[0], w1, padding='same').shape)
print(torch.conv1d(x1, w1, None, 1, 2, 2).shape)

xl = torch.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
wl = torch.ones(2, 3, 2, 2, dtype=torch.long)
print(F.conv2d(xl, wl)[1, 1])

xf = x.detach().float()
wf = w.detach().float()
print(F.conv2d(xf, wf, padding=1)[0, 0, :2])
