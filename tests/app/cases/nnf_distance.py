import torch
import torch.nn.functional as F

a = torch.tensor([[1.0, -2.0, 0.5], [0.0, 0.0, 0.0], [3.0, 4.0, -1.0]], requires_grad=True)
b = torch.tensor([[0.5, 1.0, 2.0], [1.0, -1.0, 0.5], [3.0, 4.0, -1.0]], requires_grad=True)

n = F.normalize(a)
print(n, n.grad_fn, n.grad_fn.next_functions[1][0].next_functions[0][0])
n.sum().backward()
print(a.grad)
print(F.normalize(a, p=1.0, dim=0))

a.grad = None
c = F.cosine_similarity(a, b)
print(c, c.grad_fn)
c.sum().backward()
print(a.grad, b.grad)
print(F.cosine_similarity(a, b[0], dim=-1))
print(torch.cosine_similarity(a, b, 0, 1e-3))

a.grad = None
b.grad = None
d = F.pairwise_distance(a, b)
print(d, d.grad_fn, d.grad_fn.next_functions)
d.sum().backward()
print(a.grad)
print(F.pairwise_distance(a, b, p=1.0, keepdim=True))
print(torch.pairwise_distance(a, b[1]))

x = a.clamp_min(0.25)
print(x, x.grad_fn)
print(a.clamp_max(0.25).grad_fn, torch.clamp_min(a, 1.0).grad_fn)

x1 = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]], requires_grad=True)
x2 = torch.tensor([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0], [2.0, 0.0, -3.0]], requires_grad=True)
w = (torch.arange(24.0) * 0.3).sin().reshape(4, 2, 3).requires_grad_()
bias = torch.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
y = F.bilinear(x1, x2, w, bias)
print(y, y.grad_fn)
print(y.grad_fn.next_functions[0][0].next_functions[0][0])
(y * torch.arange(12.0).reshape(3, 4)).sum().backward()
print(x1.grad, x2.grad, w.grad, bias.grad)
print(torch.bilinear(x1[None], x2[None], w, None).shape)

# second derivatives
g, = torch.autograd.grad(F.bilinear(x1, x2, w).pow(2).sum(), w, create_graph=True)
g.sum().backward()
print(x1.grad)

def err(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)

err(lambda: F.cosine_similarity(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long)))
err(lambda: F.cosine_similarity(torch.ones(3), torch.ones(3)))
err(lambda: F.bilinear(x1, x2[0], w))
err(lambda: F.bilinear(x1, x2[:2], w))
err(lambda: F.bilinear(x2, x1, w))
err(lambda: F.bilinear(x1, x2, w, torch.ones(3)))
