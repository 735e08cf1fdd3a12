# The in-place activations elu_, leaky_relu_, celu_ and threshold_ (their
# grad_fns end in Backward1: PyTorch's backward reads the result or the
# saved input): each opens as a scalar graph whose sums equal the step's.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [-1.5, 3.0, -0.25]], requires_grad=True)
a = x * 1.5
F.elu(a, alpha=0.5, inplace=True)
b = x * 1
F.leaky_relu_(b, 0.2)
c = x - 0.5
F.celu(c, 1.5, inplace=True)
d = x * 2
F.threshold_(d, 0.7, -3.0)
e = x + 0
torch.nn.ReLU(inplace=True)(e)
print(a, b, c, d, e, sep='\n')
print(a.grad_fn.name(), b.grad_fn.name(), c.grad_fn.name(), d.grad_fn.name())
loss = (a * a).sum() + (b * b).sum() + c.exp().sum() + (d * x).sum() + e.sum()
loss.backward()
print(loss)
print(x.grad)
