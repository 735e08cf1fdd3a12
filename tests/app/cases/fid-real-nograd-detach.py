# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
with torch.no_grad():
    y = w * x
print(y.requires_grad)
z = (w * x).detach()
print(z.requires_grad, z.is_leaf)

@torch.no_grad()
def evaluate(v):
    return (v * 2).sum()

r = evaluate(w)
print(r, r.requires_grad)
print(torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled())
with torch.enable_grad():
    q = w.sum()
print(q.requires_grad)
w2 = w.detach().clone().requires_grad_(True)
print(w2.is_leaf, w2.requires_grad)
with torch.no_grad():
    w.sub_(0.1 * torch.ones(3))
print(w.requires_grad, w.is_leaf)
loss = (w ** 2).sum()
loss.backward()
print(w.grad)
w.grad.zero_()
print(w.grad)
with torch.inference_mode():
    t = w * 2
print(t.requires_grad)
print(w.data.requires_grad)
