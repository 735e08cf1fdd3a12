# torch.inference_mode as evaluation code uses it, and the in-place forms
# addmm_, baddbmm_, addmv_, cumsum_, cumprod_.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
x = torch.randn(4, 3)
print(torch.is_inference_mode_enabled(), torch.inference_mode())
with torch.inference_mode():
    y = model(x)
    scratch = torch.ones(2)
    view = x[:2]
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    print(y.requires_grad, y.is_inference(), view.is_inference(), x.is_inference())
    with torch.inference_mode(False):
        print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(),
              torch.zeros(1).is_inference())
    x.mul_(1.0)
print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), y.grad_fn, y)


@torch.inference_mode()
def predict(inp):
    return model(inp).argmax(dim=1)


p = predict(x)
print(p, p.is_inference(), torch.is_inference_mode_enabled())
try:
    scratch.requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    scratch.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
z = y.clone()
print(z.is_inference(), z.add_(1))
loss = (model(x) + y).sum()
loss.backward()
print(model.weight.grad)

# In-place products and scans on non-leaves.
a = torch.randn(2, 3, requires_grad=True)
m1 = torch.randn(2, 4, requires_grad=True)
m2 = torch.randn(4, 3)
out = a * 1
out.addmm_(m1, m2, beta=0.5, alpha=2)
print(out, out.grad_fn.name(), out.grad_fn._saved_beta, out.grad_fn._saved_alpha)
print(out.grad_fn.next_functions[0][0].name(), out.grad_fn.next_functions[2])
out.sum().backward()
print(a.grad, m1.grad)
b = torch.zeros(2, 2, 2)
b.baddbmm_(torch.ones(2, 2, 3), torch.ones(2, 3, 2), alpha=0.5)
print(b)
v = torch.ones(2)
v.addmv_(torch.eye(2), torch.tensor([3.0, 4.0]))
print(v)
c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = c * 1
d.cumprod_(0)
print(d, d.grad_fn.name(), d.grad_fn._saved_self, d.grad_fn.next_functions[0][0].name())
d.sum().backward()
print(c.grad)
s = torch.arange(1.0, 5.0)
s[1:].cumsum_(0)
print(s, torch.arange(1, 4).cumprod_(0))
try:
    torch.zeros(3).addmm_(torch.ones(2, 3), torch.ones(3, 3))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    c.cumsum_(0)
except RuntimeError as e:
    print("RuntimeError:", e)
