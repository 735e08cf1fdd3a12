import torch

# In-place ops on views: PyTorch's rules, and no graph left behind (the leaf
# used to take CopySlices as its history, a cycle of nodes never freed).
def attempt(name, f):
    try:
        print(name, "ok", f())
    except RuntimeError as e:
        print(name, "RuntimeError:", e)

def leaf_view():
    x = torch.ones(3, requires_grad=True)
    v = x[:2]
    v.add_(1)
    return x
attempt("leaf view add_", leaf_view)

def leaf_view_2d():
    x = torch.ones(2, 3, requires_grad=True)
    v = x.view(3, 2)
    v.mul_(2)
    return x
attempt("leaf view mul_", leaf_view_2d)

def view_of_view():
    x = torch.ones(4, requires_grad=True)
    v = x[1:][:2]
    v.zero_()
    return x
attempt("view of view zero_", view_of_view)

def leaf_view_no_grad():
    x = torch.ones(3, requires_grad=True)
    v = x[:2]
    with torch.no_grad():
        v.add_(1)
    (x * 2).sum().backward()
    return x, x.grad_fn, x.grad
attempt("leaf view no_grad", leaf_view_no_grad)

def non_leaf_base():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    v = y[:2]
    v.add_(1)
    v.mul_(x[:2])
    y.sum().backward()
    return y, x.grad
attempt("non-leaf base", non_leaf_base)

def detached_base():
    x = torch.ones(3, requires_grad=True)
    d = x.detach()
    v = d[:2]
    v.add_(1)
    w = torch.ones(2, requires_grad=True)
    v.mul_(w * 3)
    d.sum().backward()
    return x, d, w.grad
attempt("detached base", detached_base)

def view_detached():
    x = torch.ones(3, requires_grad=True)
    v = x[:2].detach()
    v.add_(1)
    return x
attempt("view detached", view_detached)

def plain_base():
    b = torch.ones(3)
    w = torch.ones(2, requires_grad=True)
    v = b[:2]
    v.mul_(w)
    b.sum().backward()
    return b, w.grad
attempt("plain base", plain_base)

x = torch.ones(3, requires_grad=True)
v = x[:2]
v.add_(1)
