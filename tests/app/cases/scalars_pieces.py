# Ops that move elements: gather, index_select, indexing with a tensor,
# embedding, select, slices, cat and stack; bmm and a batched matmul; cross_entropy (its
# log_softmax and nll_loss) - each opens as a scalar graph.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.5, -1.0], [2.5, -0.5, 1.0]], requires_grad=True)
v = torch.tensor([3.0, -1.0, 2.0], requires_grad=True)
g = torch.gather(x, 1, torch.tensor([[2, 0], [1, 1], [0, 2]]))
i = torch.index_select(x, 0, torch.tensor([2, 0]))
r = x[torch.tensor([1, 1, 0])]
s = x[..., 2]
sl = x[1:, ::2]
E = torch.tensor([[0.5, -1.0], [2.0, 1.0], [-0.5, 0.25]], requires_grad=True)
emb = F.embedding(torch.tensor([2, 0, 2]), E)
col = x[:, 1]
c = torch.cat([x, v.unsqueeze(0)], 0)
st = torch.stack([v, s], 1)
A = torch.tensor([[[1.0, 2.0], [0.5, -1.0]], [[0.0, 1.0], [2.0, -2.0]]], requires_grad=True)
B = torch.tensor([[[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]], [[0.5, 0.5, -1.0], [1.0, 2.0, 0.0]]],
                 requires_grad=True)
p = torch.bmm(A, B)
q = A @ B
ce = F.cross_entropy(x, torch.tensor([0, 2, 1]))
loss = (g * g).sum() + (i * torch.arange(6.0).view(2, 3)).sum() + r.sum() * 2 + (s * v).sum()
loss = loss + (c * torch.arange(12.0).view(4, 3)).sum() + (st * st).sum()
loss = loss + (sl * torch.tensor([[1.0, -2.0], [0.5, 3.0]])).sum() + (col * col).sum()
loss = loss + (emb * emb).sum()
loss = loss + (p * torch.arange(12.0).view(2, 2, 3)).sum() + (q * q).sum() + ce
loss.backward()
print(g)
print(i)
print(r)
print(s)
print(st)
print(sl)
print(col)
print(p)
print(ce)
print(loss)
print(x.grad)
print(v.grad)
print(A.grad)
print(B.grad)
print(E.grad)
