# Clamping with tensor bounds, as PPO's clipped objective, box constraints
# and per-feature limits write it.
import torch

torch.manual_seed(0)
x = torch.randn(2, 4, requires_grad=True)
lo = torch.full((4,), -0.5, requires_grad=True)
hi = torch.tensor([0.2, 0.5, 1.0, 0.0], requires_grad=True)
y = torch.clamp(x, min=lo, max=hi)
print(y)
g = y.grad_fn
print(g.name(), len(g.next_functions), g._saved_self is x, g._saved_min is lo, g._saved_max is hi)
y.backward(torch.arange(8.0).view(2, 4))
print(x.grad)
print(lo.grad, hi.grad)

# min above max: max wins, and only max gets the gradient there.
a = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
b_lo = torch.tensor([1.5, 1.5, 1.5], requires_grad=True)
b_hi = torch.tensor([1.0, 1.0, 3.0], requires_grad=True)
z = a.clamp(b_lo, b_hi)
z.sum().backward()
print(z, a.grad, b_lo.grad, b_hi.grad)

# One bound only, a 0-d bound, clamp_min / clamp_max with tensors.
m = x.clamp(min=torch.tensor(0.1))
print(m.grad_fn.name(), m.grad_fn._saved_max, m.grad_fn.next_functions[2])
print(x.clamp(max=hi).grad_fn.name())
cm = torch.clamp_min(x, lo)
print(cm.grad_fn.name(), cm.grad_fn._saved_min is lo)
cx = x.clamp_max(hi)
print(cx.grad_fn.name(), cx)
x.grad = None
(cm * cx).sum().backward()
print(x.grad, lo.grad)

# PPO's clipped surrogate with a per-sample epsilon.
torch.manual_seed(1)
ratio = torch.exp(torch.randn(5) * 0.3).requires_grad_()
adv = torch.randn(5)
eps = torch.tensor([0.1, 0.2, 0.1, 0.2, 0.3])
surr = torch.min(ratio * adv, torch.clamp(ratio, 1 - eps, 1 + eps) * adv)
loss = -surr.mean()
loss.backward()
print(loss, ratio.grad)

# Integer tensors, promotion with a float bound, broadcasting the result.
n = torch.tensor([1, 5, 9])
print(n.clamp(min=torch.tensor([2, 2, 2]), max=torch.tensor([4, 4, 10])))
print(n.clamp(min=torch.tensor([2.5, 2.0, 2.0])))
print(torch.zeros(2, 1).clamp(min=torch.tensor([-1.0, 1.0, 2.0])))

# In place, and the errors.
w = x.detach().clone()
w.clamp_(min=lo.detach(), max=hi.detach())
print(w)
v = x * 1
v.clamp_(min=lo)
print(v.grad_fn.name())
try:
    torch.clamp(x, min=torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.clamp(x, min=lo, max=0.5)
except TypeError as e:
    print("TypeError:", e)
try:
    n.clone().clamp_(min=torch.tensor([0.5, 0.5, 0.5]))
except RuntimeError as e:
    print("RuntimeError:", e)

# Second order through the clamp.
p = torch.tensor([0.3, -2.0, 4.0], dtype=torch.float64, requires_grad=True)
q = torch.tensor([0.0, -1.0, 1.0], dtype=torch.float64, requires_grad=True)
gp, = torch.autograd.grad((p.clamp(min=q) ** 3).sum(), p, create_graph=True)
print(gp, gp.grad_fn.name())
print(torch.autograd.grad(gp.sum(), (p, q)))
print(torch.autograd.gradcheck(lambda s, t: s.clamp(min=t), (p, q)))

# clamp_min_, clamp_max_ and clip_ in place, with numbers and tensors.
s = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = s * 1
y.clamp_min_(0.0)
print(y, y.grad_fn.name(), y.grad_fn._saved_min, y.grad_fn._saved_self)
z = s * 1
z.clamp_max_(torch.tensor([0.0, 1.0, 1.0]))
print(z, z.grad_fn.name(), z.grad_fn._saved_self)
u = s * 1
u.clamp_max_(1)
print(u.grad_fn._saved_max, u.clip_(min=0.2))
(y.sum() + z.sum() + u.sum()).backward()
print(s.grad)
w = s.detach().clone()
w.clamp_min_(1)
w.clip_(max=torch.tensor(1.5))
print(w)
