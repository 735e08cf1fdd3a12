# x[idx] = v with tensor indices (IndexPutBackward0): rows from a
# broadcast value, single elements, and the double backward of indexing,
# whose put accumulates (an element indexed twice gets both gradients):
# each opens as a scalar graph whose sums equal the step's.
import torch

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], requires_grad=True)
v = torch.tensor([7.0, -8.0, 9.0], requires_grad=True)
y = x * 2
y[torch.tensor([1])] = v
z = x + 1
z[torch.tensor([0, 1]), torch.tensor([2, 0])] = v[:2] * 3
print(y, z, sep='\n')
print(y.grad_fn.name(), y.grad_fn._saved_accumulate)
g = x[torch.tensor([1, 0, 1])]
gx, = torch.autograd.grad((g * g).sum(), x, create_graph=True)
print(gx.detach())
loss = (y * y).sum() + z.sin().sum() + (gx * x).sum()
loss.backward()
print(x.grad, v.grad, sep='\n')
