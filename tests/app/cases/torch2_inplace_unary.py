import torch
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
for name in ["exp_", "log_", "neg_", "abs_", "sqrt_", "relu_", "sigmoid_", "tanh_", "sin_", "cos_", "reciprocal_"]:
    y = x * 1
    r = getattr(y, name)()
    print(name, r is y, y._version, y.grad_fn, y.grad_fn.next_functions)
    y.sum().backward()
    print(x.grad)
    x.grad = None
z = x * 2
torch.exp_(z)
print(z)
w = x * 3
w.log_().tanh_()
g, = torch.autograd.grad(w.sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
i = torch.tensor([-1, 2])
i.neg_()
print(i)
with torch.no_grad():
    x.exp_()
print(x, x.grad_fn)
s = x.sigmoid()
x.exp_()
x.relu_()
