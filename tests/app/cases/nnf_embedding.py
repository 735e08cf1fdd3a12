import torch
import torch.nn.functional as F

w = (torch.arange(15.0) * 0.4).sin().reshape(5, 3).requires_grad_()
idx = torch.tensor([[0, 2, 4], [4, 4, 1]])
e = F.embedding(idx, w)
print(e)
print(e.grad_fn)
print(e.grad_fn.next_functions)
(e * torch.arange(18.0).reshape(2, 3, 3)).sum().backward()
print(w.grad)

w.grad = None
p = F.embedding(idx, w, padding_idx=4)
print(p)
(p * 2).sum().backward()
print(w.grad)

w.grad = None
q = F.embedding(torch.tensor([1, 3]), w, padding_idx=-2)
q.sum().backward()
print(w.grad)

print(torch.embedding(w, torch.tensor(2)))
print(F.embedding(torch.tensor(3), w.detach()))
print(F.embedding(torch.tensor([], dtype=torch.long), w).shape)

# max_norm renormalizes the rows read, in place
w2 = torch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
print(F.embedding(torch.tensor([0, 0, 1]), w2, max_norm=1.0))
print(w2)
w3 = torch.tensor([[3.0, 4.0], [0.3, 0.4]], requires_grad=True)
r = F.embedding(torch.tensor([0, 1]), w3, max_norm=2.0, norm_type=1.0)
print(r)
r.sum().backward()
print(w3.grad)

# double backward
ww = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
out = F.embedding(torch.tensor([2, 0, 2]), ww)
g, = torch.autograd.grad((out ** 2).sum(), ww, create_graph=True)
print(g.detach())
g.sum().backward()
print(ww.grad)

def err(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)

err(lambda: F.embedding(torch.tensor([5]), w))
err(lambda: F.embedding(torch.tensor([-1]), w))
err(lambda: F.embedding(torch.tensor([1.0]), w))
err(lambda: F.embedding(torch.tensor([1]), torch.ones(5)))
err(lambda: F.embedding(torch.tensor([1]), w, padding_idx=5))
err(lambda: F.embedding(torch.tensor([1]), w, padding_idx=-6))

# scale_grad_by_freq divides each row's gradient by how often it was read
wf = torch.ones(4, 2, requires_grad=True)
out = F.embedding(torch.tensor([[0, 2, 2], [2, 3, 0]]), wf, scale_grad_by_freq=True)
(out * torch.arange(12.0).reshape(2, 3, 2)).sum().backward()
print(wf.grad)
wf.grad = None
F.embedding(torch.tensor([1, 1, 3]), wf, padding_idx=3, scale_grad_by_freq=True).sum().backward()
print(wf.grad)
