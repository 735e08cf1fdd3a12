# Advanced indexing with tensors and lists: p[torch.arange(n), y] picks one
# entry per row (how losses pick the right class); IndexBackward0 scatters the
# gradient back; boolean masks select elements.
import torch
p = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.25, 0.25, 0.5]], requires_grad=True)
y = torch.tensor([1, 0, 2])
picked = p[torch.arange(3), y]
print(picked)
print(picked.grad_fn)
loss = -picked.log().mean()
print(loss)
loss.backward()
print(p.grad)

x = torch.tensor([10.0, 20.0, 30.0, 40.0])
print(x[[0, 2]])
print(x[torch.tensor([3, 3, 1])])
print(x[x > 15])
print(x[torch.tensor([True, False, True, False])])
m = torch.arange(9).reshape(3, 3)
print(m[[0, 2]])
print(m[:, [2, 0]])
print(m[m % 2 == 0])
