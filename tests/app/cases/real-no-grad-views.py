import torch
x = torch.ones(3, requires_grad=True)
y = x * 2
with torch.no_grad():
    a = x[:2]; b = y[:2]; c = y.view(3); d = y + 1; e = y.t() if y.dim() == 2 else y.squeeze(); f = y[0]; g = y.detach()[:1]
    print(a.requires_grad, a.grad_fn, a.is_leaf)
    print(b.requires_grad, b.grad_fn, b.is_leaf)
    print(c.requires_grad, d.requires_grad, e.requires_grad, f.requires_grad, g.requires_grad)
    print(b)
    print(y.transpose(0, 0).requires_grad, y.unsqueeze(0).requires_grad, y.expand(2, 3).requires_grad, y.narrow(0, 0, 1).requires_grad, y.reshape(3).requires_grad, y.flatten().requires_grad, y.chunk(3)[0].requires_grad, y.unbind()[0].requires_grad, y.split(1)[0].requires_grad, y.select(0, 1).requires_grad, y.view_as(y).requires_grad, y.unflatten(0, (3, 1)).requires_grad, y.diagonal() if False else 0)
try:
    b.mul_(2)
except RuntimeError as err:
    print(err)
print(b.requires_grad, b.grad_fn)
