# int and bool tensors with Python numbers, in-place index updates, where with
# scalars, reductions of int/bool tensors, clamp_min.
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
y = torch.tensor([0, 2, 1, 0])
w = torch.ones(3, 2, requires_grad=True)
h = torch.relu(x @ w)
loss = F.cross_entropy(h, torch.tensor([0, 1, 1, 0]))
loss.backward()
print(w.grad.shape, x.grad.shape, loss.grad_fn, loss.grad_fn.next_functions)
z = torch.zeros(3)
z[1] += 5
print(z)
z[z > 1] *= 2
print(z)
m = torch.arange(6).reshape(2, 3)
print(m, m.sum(), m.float().mean(), m[:, 1:].sum(0), m.max(), m.argmax(), m // 2, m % 4, m * 1.5, m / 2)
print(m.t(), m.T.contiguous().view(-1), m.flatten().tolist())
print(torch.stack([m, m], dim=2).shape, torch.cat([m, m]).shape)
print(m == 2, (m == 2).any(), (m > 1).sum(), (m > 1).float().mean())
b = torch.tensor([True, False])
print(b.sum(), b.long(), b.float(), ~b, b.all(), b.any())
print(torch.where(b, 1, 0), torch.where(b, torch.tensor([1.,2.]), torch.tensor([3.,4.])))
e = torch.tensor([[1., 2.], [3., 4.]])
print(e.clamp(2, 3), e.clamp_min(2) if hasattr(e, 'clamp_min') else 0)
