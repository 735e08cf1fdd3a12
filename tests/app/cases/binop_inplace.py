# Binary rows in place: x.atan2_(y), x.fmod_(2), %=, their nodes and grads
import torch

x = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
y = torch.tensor([2.0, -1.5, 0.25], requires_grad=True)
for name, other in [("atan2_", y), ("hypot_", y), ("copysign_", y), ("xlogy_", y.abs()),
                    ("fmod_", y), ("fmod_", 0.75), ("remainder_", y), ("remainder_", 2),
                    ("copysign_", -1.0), ("xlogy_", 3)]:
    x.grad = None
    y.grad = None
    z = x * 1
    getattr(z, name)(other)
    print(name, z.grad_fn.name(), z._version)
    z.sum().backward()
    print(z, x.grad, y.grad)

z = x.clone()
z %= 0.6
print(z.grad_fn.name(), z)
z = x.clone()
z %= y
print(z.grad_fn.name(), z)
w = torch.tensor([3.0, 4.0, -5.0])
w.hypot_(torch.tensor([4.0, 3.0, 12.0]))
print(w)
c = torch.tensor([1.0, 2.0, 3.0])
c.eq_(torch.tensor([1.0, 0.0, 3.0]))
print(c)
k = torch.tensor([7, -7, 9])
k.remainder_(3)
print(k)
k.floor_divide_(2)
print(k)
v = torch.zeros(2, 3, requires_grad=True)
t = v * 1
t[0].atan2_(torch.tensor([1.0, -1.0, 2.0]))
print(t.grad_fn.name())
t.sum().backward()
print(v.grad)
