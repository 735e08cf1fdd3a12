# torch.autograd.backward with several roots and grad_tensors (None for a
# scalar), and torch.autograd.Variable, the alias PyTorch keeps: a new leaf
# sharing the tensor's data, requires_grad as asked.
import torch
from torch.autograd import Variable
x = torch.tensor([1.0, 2.0], requires_grad=True)
y1 = x * 3
y2 = (x ** 2).sum()
torch.autograd.backward([y1, y2], [torch.ones(2), None])
print(x.grad)
torch.autograd.backward((x * x).sum())
print(x.grad)
t = torch.ones(3)
v = Variable(t, requires_grad=True)
print(v, v.is_leaf, v.requires_grad, t.requires_grad, v.data_ptr() == t.data_ptr())
print(Variable(torch.zeros(2)))
w = Variable(torch.ones(2) * 2, requires_grad=True)
(w * w).sum().backward()
print(w.grad)
print(isinstance(v, torch.Tensor))
