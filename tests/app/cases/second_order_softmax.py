# A create_graph gradient through softmax and log_softmax is PyTorch's own node
# (SoftmaxBackwardDataBackward0, LogSoftmaxBackwardDataBackward0), and its
# second and third derivatives are right: Hessian-vector products of
# cross_entropy too.
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -1.5]], requires_grad=True)
w = torch.tensor([[0.3, -0.7, 1.1], [2.0, 0.1, -0.4]])
for name, f in [("softmax1", lambda t: F.softmax(t, dim=1)), ("softmax0", lambda t: F.softmax(t, dim=0)),
                ("log_softmax1", lambda t: F.log_softmax(t, dim=1)), ("log_softmax0", lambda t: torch.log_softmax(t, 0))]:
    y = (f(x) * w).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    print(name, g, g.grad_fn.name(), [n[0].name() if n[0] else None for n in g.grad_fn.next_functions])
    h, = torch.autograd.grad((g * g).sum(), x, create_graph=True)
    print(h)
    print(h.grad_fn.name())
    k, = torch.autograd.grad((h * w).sum(), x)
    print(k)
# cross entropy: Hessian-vector product
logits = torch.tensor([[0.2, 1.5, -0.3], [1.0, 0.0, 2.0]], requires_grad=True)
target = torch.tensor([1, 2])
loss = F.cross_entropy(logits, target)
g, = torch.autograd.grad(loss, logits, create_graph=True)
print(g, g.grad_fn.name())
v = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]])
hv, = torch.autograd.grad(g, logits, v)
print(hv)
# a 0-d softmax
s = torch.tensor(0.7, requires_grad=True)
y = torch.softmax(s, 0) * 3
g, = torch.autograd.grad(y, s, create_graph=True)
print(g, g.grad_fn.name())
print(torch.autograd.grad(g, s))
