# retain_grad and retain_graph, create_graph for second derivatives, autograd.grad
# with several outputs and a grad_outputs tensor, backward(gradient), detach/clone.
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * x
y.retain_grad()
z = y.sum()
z.backward(retain_graph=True)
print(y.grad, x.grad)
z.backward()
print(y.grad, x.grad)
a = torch.tensor(3., requires_grad=True)
b = a ** 2
gb, = torch.autograd.grad(b, a, create_graph=True)
print(gb, gb.grad_fn, gb.requires_grad)
gb.backward()
print(a.grad)
c = torch.tensor([1., 2.], requires_grad=True)
d = (c ** 3).sum()
g1 = torch.autograd.grad(d, c, create_graph=True)[0]
print(g1)
g2 = torch.autograd.grad(g1.sum(), c)[0]
print(g2)
print(torch.autograd.grad([c.sum(), (c * 2).sum()], [c]))
print(torch.autograd.grad(c.sum(), c, torch.tensor(2.)))
s = c.sum()
s.backward(torch.tensor(3.))
print(c.grad)
c.grad = None
(c * torch.tensor([1., 2.])).backward(gradient=torch.tensor([1., 1.]))
print(c.grad)
u = c.detach().requires_grad_()
print(u.is_leaf, u.requires_grad, u.grad_fn)
v = c.clone()
print(v.is_leaf, v.grad_fn)
k = c + 0
k.retain_grad()
k2 = k * 2
k2.sum().backward()
print(k.grad, k.retains_grad)
print(c.grad is not None, c.grad.requires_grad)
