# nonzero / argwhere for masks, index_add_ for grouped sums (forum answers)
import torch
t = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, float('nan')]])
print(torch.nonzero(t), t.nonzero(as_tuple=True), torch.argwhere(t > 1))
print(torch.nonzero(torch.tensor([0, 1, 0, 2])), torch.tensor([False, True]).nonzero())
print(torch.nonzero(torch.zeros(2, 2)).shape, torch.tensor([0, 3, 0]).nonzero().squeeze(1))
y = torch.zeros(5)
y.index_add_(0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]))
print(y)
x = torch.ones(5, 3)
src = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], requires_grad=True)
out = x.index_add(0, torch.tensor([0, 4, 2]), src, alpha=2)
print(out)
base = torch.zeros(2, 4, requires_grad=True)
z = base.index_add(1, torch.tensor([3, 3]), torch.ones(2, 2))
(z * torch.arange(8.).view(2, 4)).sum().backward()
print(z.grad_fn.name(), base.grad)
(out * torch.arange(15.).view(5, 3)).sum().backward()
print(src.grad)
try:
    torch.zeros(3).index_add_(0, torch.tensor([3]), torch.ones(1))
except IndexError as e:
    print(e)
try:
    torch.zeros(3).index_add_(0, torch.tensor([0, 1]), torch.ones(3))
except RuntimeError as e:
    print(e)
