import torch
x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], requires_grad=True)
mask = x > 0
y = torch.masked_select(x, mask)
loss = (y ** 3).sum()
g, = torch.autograd.grad(loss, x, create_graph=True)
print(g)
print(g.grad_fn, g.grad_fn.next_functions)
ms = g.grad_fn
print(ms._saved_mask)
g.sum().backward()
print(x.grad)
# broadcast mask: the gradient is summed back down to x's shape
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
m2 = torch.tensor([[True, False, True], [True, True, False]])
z = w.masked_select(m2)
gw, = torch.autograd.grad((z * z).sum(), w, create_graph=True)
print(gw, gw.grad_fn)
print(gw.grad_fn.next_functions[0][0].next_functions)
gw.sum().backward()
print(w.grad)
