# torch.autograd.grad forms (tuple result, grad_outputs, lists of inputs,
# retain_graph, create_graph, allow_unused), backward with
# gradient/retain_graph/create_graph, autograd.backward, retain_grad, next_functions
# and AccumulateGrad.variable.
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum()
g = torch.autograd.grad(y, x)
print(g, type(g).__name__, len(g))
z = x * 2
g2 = torch.autograd.grad(z, x, grad_outputs=torch.tensor([1., 0.5, 2.]))
print(g2)
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
f = a * b + a ** 2
print(torch.autograd.grad(f, [a, b], retain_graph=True))
print(torch.autograd.grad(f, (b,)))
u = torch.tensor(1.5, requires_grad=True)
v = u ** 3
(du,) = torch.autograd.grad(v, u, create_graph=True)
print(du)
(d2u,) = torch.autograd.grad(du, u)
print(d2u)
c = torch.tensor(1.0, requires_grad=True)
print(torch.autograd.grad(a * 2, [a, c], allow_unused=True))
p = torch.tensor([1., 2.], requires_grad=True)
q = p * p
q.backward(torch.tensor([1., 1.]))
print(p.grad)
w = p * 3
w.sum().backward(retain_graph=True)
w.sum().backward()
print(p.grad)
torch.autograd.backward([(p * p).sum()])
print(p.grad)
s = (p.exp()).sum()
s.backward(create_graph=True)
print(p.grad)
h = p.detach()
print(h.requires_grad, h.grad_fn)
k = p * 2
k.retain_grad()
(k * k).sum().backward()
print(k.grad, k.retains_grad, k.is_leaf)
r = torch.tensor([1., 2.], requires_grad=True)
e = r * 2
print(e.grad)
print(e.grad_fn.next_functions, e.grad_fn.next_functions[0][0].variable is r)
print(e.grad_fn.name(), (e + r).grad_fn.next_functions)
o = r.sum()
print(o.grad_fn.next_functions[0][0].next_functions)
p.grad = None
