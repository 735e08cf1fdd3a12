import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
y = a * b
z = (y * y).sum()
z.backward(inputs=[a], retain_graph=True)
print(a.grad, b.grad, y.grad)
z.backward(inputs=a, retain_graph=True)
print(a.grad, b.grad)
z.backward(inputs=[y], retain_graph=True)
print(y.grad, y.is_leaf)
a.register_hook(lambda g: g * 10)
torch.autograd.backward([z], inputs=[a, b], retain_graph=True)
print(a.grad, b.grad)
try:
    z.backward(inputs=[])
except Exception as e:
    print(type(e).__name__, e)
c = torch.tensor(1.0, requires_grad=True)
try:
    z.backward(inputs=[c], retain_graph=True)
    print(c.grad)
except Exception as e:
    print(type(e).__name__, e)
try:
    z.backward(inputs=[torch.ones(2)])
except Exception as e:
    print(type(e).__name__, e)
# A non-leaf input keeps retaining its grad afterwards.
print(y.retains_grad)
z.backward(retain_graph=True)
print(y.grad)
# Several roots, and only the nodes up to the inputs run.
p = torch.tensor(2.0, requires_grad=True)
q = p * 3
r = q.exp()
torch.autograd.backward([r, q], inputs=(q,))
print(q.grad, p.grad)
# create_graph: the gradient is differentiable.
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w ** 3).sum().backward(inputs=[w], create_graph=True)
print(w.grad)
gw = w.grad.sum()
w.grad = None
gw.backward()
print(w.grad)
