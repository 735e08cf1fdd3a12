# Leaves, non-leaves and retain_grad().
# Only leaf tensors get .grad after backward; an intermediate result keeps its
# gradient only if you ask with retain_grad(). e = a*b + log(d)*c, so
# de/da = b, de/db = a, de/dc = log(d), de/dd = c/d and de/dt = c.
import torch

a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor([5.0], requires_grad=True)
d = torch.tensor([10.0], requires_grad=True)
u = a * b
t = torch.log(d)
v = t * c
t.retain_grad()
e = u + v

print(f"a is leaf: {a.is_leaf}")
print(f"a grad_fn: {a.grad_fn}")
print(f"a grad: {a.grad}")
print(f"t is leaf: {t.is_leaf}")
print(f"t grad: {t.grad}")
print()

e.backward()
print(f"de/da = {a.grad.item()}")
print(f"de/db = {b.grad.item()}")
print(f"de/dc = {c.grad.item()}")
print(f"de/dd = {d.grad.item()}")
print()
print(f"a grad: {a.grad}")
print(f"t grad: {t.grad}")
print(f"e is leaf: {e.is_leaf}, e requires grad: {e.requires_grad}")
