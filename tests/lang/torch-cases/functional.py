# torch.nn.functional activations and losses with reduction=, and the implicit-dim
# softmax warning.
import torch
import torch.nn.functional as F
from torch import nn
x = torch.tensor([[1., -2., 0.5], [0.3, 2., -1.]], requires_grad=True)
t = torch.tensor([[1., 0., 1.], [0., 1., 0.]])
print(F.relu(x), F.softmax(x, dim=1), F.log_softmax(x, 1))
print(F.relu(x).grad_fn, F.softmax(x, 1).grad_fn, nn.functional.tanh(x).grad_fn)
print(torch.sigmoid(x), F.sigmoid(x).grad_fn)
print(F.mse_loss(x, t), F.mse_loss(x, t, reduction='sum'), F.mse_loss(x, t, reduction='none'))
print(F.binary_cross_entropy(torch.sigmoid(x), t))
print(F.binary_cross_entropy_with_logits(x, t), F.binary_cross_entropy_with_logits(x, t).grad_fn)
y = torch.tensor([2, 1])
print(F.cross_entropy(x, y), F.cross_entropy(x, y, reduction='sum'), F.cross_entropy(x, y).grad_fn)
print(F.nll_loss(F.log_softmax(x, 1), y), F.nll_loss(x, y, reduction='none'))
loss = F.cross_entropy(x, y)
loss.backward()
print(x.grad)
print(F.softmax(torch.tensor([1., 2., 3.])))
