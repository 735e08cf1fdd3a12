# SGD with momentum and a closure; in-place ops through views and .data, version
# counters, slices of leaves.
import torch
w = torch.tensor([1., 2.], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)
print(opt)
print(opt.param_groups[0]['momentum'], opt.param_groups[0]['params'][0] is w)
for i in range(5):
    opt.zero_grad()
    l = ((w * 3 + b - 2) ** 2).mean()
    l.backward()
    opt.step()
print(w, b, l)
def closure():
    opt.zero_grad()
    l = (w ** 2).sum()
    l.backward()
    return l
print(opt.step(closure))
print(w)
x = torch.ones(2, 2)
v = x[0]
v += 1
print(x, v._version, x._version)
d = x.data
d.mul_(3)
print(x)
p = torch.tensor([1., 2., 3.], requires_grad=True)
q = p[1:]
print(q, q.grad_fn, q.is_leaf)
r = p.detach()
r[0] = 100.
print(p)
