# torch.no_grad as a decorator and a context manager, nested with
# torch.enable_grad(); torch.is_grad_enabled() reports the mode.
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)


@torch.no_grad()
def evaluate(x):
    print("inside:", torch.is_grad_enabled())
    return (w * x).sum()


r = evaluate(torch.tensor([3.0, 4.0]))
print(r, r.requires_grad)
print("outside:", torch.is_grad_enabled())
with torch.no_grad():
    a = w * 2
    with torch.enable_grad():
        b = w * 2
print(a.requires_grad, b.requires_grad, b.grad_fn)
with torch.no_grad():
    w -= 0.5 * torch.tensor([1.0, 1.0])
print(w, w.is_leaf)
