import torch
x = torch.tensor([[1., 2, 3], [4, 5, 6]], requires_grad=True)
y = x * 2
r = y.t_()
print(r is y, y._version, y.shape, y.stride(), y.is_contiguous())
print(y)
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
u = (x * 1).unsqueeze_(1)
print(u.shape, u.stride(), u.grad_fn.name(), u._version)
u.unsqueeze_(-1)
print(u.shape, u.stride())
s = u.squeeze_()
print(s.shape, s.grad_fn.name(), s.grad_fn.next_functions[0][0].name())
q = (x * 3).unsqueeze_(0)
q.squeeze_(1)
print(q.shape, q.grad_fn.name())
q.squeeze_(0)
print(q.shape, q.grad_fn.name())
(y * torch.arange(6.).view(3, 2)).sum().backward(retain_graph=True)
print(x.grad)
x.grad = None
(s * torch.tensor([[1., 2, 3], [4, 5, 6]])).sum().backward()
print(x.grad)
v = torch.ones(3)
print(v.t_().grad_fn, v.shape)
w = torch.arange(4).view(2, 2)
w.t_()
print(w, w.is_contiguous())
for f in [lambda: x.t_(), lambda: x.unsqueeze_(0), lambda: torch.ones(2, 3, 4).t_(),
          lambda: torch.ones(2, 3).unsqueeze_(3), lambda: torch.ones(2, 3).squeeze_(2)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
with torch.no_grad():
    x.unsqueeze_(0)
print(x.shape, x.grad_fn)
z = x * 1
print(z.squeeze_(0).shape)
