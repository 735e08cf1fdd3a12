import torch
import torch.nn.functional as F
x = torch.tensor([[0.5, -2.0, 3.0], [0.1, 0.0, -0.7]], requires_grad=True)
y = torch.tensor([[0., 0., 1.], [1., 0.5, 0.]])
for kw in [{}, dict(reduction='sum'), dict(reduction='none'), dict(beta=0.5), dict(beta=0.0)]:
    l = F.smooth_l1_loss(x, y, **kw)
    print(l, l.grad_fn.next_functions)
    l.sum().backward()
    print(x.grad)
    x.grad = None
yy = y.clone().requires_grad_()
l = F.smooth_l1_loss(x, yy)
l.backward()
print(x.grad, yy.grad)
F.smooth_l1_loss(x, y, reduction='bad')
