# no_grad/enable_grad blocks, the @torch.no_grad() decorator, set_grad_enabled, manual
# SGD updates under no_grad and through .data, setting .grad and requires_grad.
import torch
x = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(torch.is_grad_enabled())
    with torch.enable_grad():
        print((x * 3).requires_grad)
print(y.requires_grad, y.grad_fn, torch.is_grad_enabled())
@torch.no_grad()
def f(t):
    return t * 2, torch.is_grad_enabled()
r, enabled = f(x)
print(r, enabled, torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x + 1).requires_grad)
print((x + 1).requires_grad)
w = torch.tensor([1., 2.], requires_grad=True)
loss = (w * w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
print(w, w.is_leaf)
w.grad.zero_()
print(w.grad)
w.data -= 1.0
print(w)
w.data = torch.tensor([5., 6.])
print(w, w.requires_grad)
v = w.data
v[0] = 0.
print(w, v.requires_grad, v.is_leaf)
w.grad = None
print(w.grad)
w.grad = torch.ones(2)
print(w.grad)
w.requires_grad = False
print(w.requires_grad)
w.requires_grad_()
print(w.requires_grad)
d = torch.ones(2)
d.requires_grad_(True)
print(d)
