import math
import torch
import torch.nn.functional as F
torch.manual_seed(0)
q = torch.randn(2, 3, 4, requires_grad=True)
k = torch.randn(2, 3, 4)
scores = q @ k.transpose(-2, -1) / math.sqrt(4)
mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
scores.masked_fill_(mask, float('-inf'))
print(scores.grad_fn, scores.grad_fn.next_functions)
att = F.softmax(scores, dim=-1)
print(att[0])
att.pow(2).sum().backward()
print(q.grad[0])
x = torch.ones(2, 3, requires_grad=True)
y = x * 1
v = torch.tensor(5.0, requires_grad=True)
y[0].masked_fill_(torch.tensor([True, False, True]), v)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad, v.grad)
z = torch.zeros(3)
print(z.masked_fill_(z == 0, 2), z)
try:
    x.masked_fill_(x > 0, 0.0)
except RuntimeError as e:
    print(e)
try:
    torch.zeros(3).masked_fill_(torch.ones(2, 3, dtype=torch.bool), 1.0)
except RuntimeError as e:
    print(e)
