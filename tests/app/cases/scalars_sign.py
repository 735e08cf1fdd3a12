# copysign (a's magnitude, b's sign: a's derivative ±1, b's 0) with a
# tensor, a broadcast row or a number, and logaddexp2: each opens as a
# scalar graph.
import torch

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]], requires_grad=True)
y = torch.tensor([[-2.0, 0.5, 1.0], [1.0, -3.0, -1.0]], requires_grad=True)
r = torch.tensor([-1.0, 1.0, -2.0], requires_grad=True)
a = torch.copysign(x, y)
b = x.copysign(r)
c = torch.copysign(x, -1.5)
d = torch.logaddexp2(x, y)
e = torch.logaddexp2(x, r)
print(a, b, c, d, e, sep='\n')
loss = (a * a.exp()).sum() + (b * y).sum() + c.sum() + (d * d).sum() + e.sum()
loss.backward()
print(x.grad, y.grad, r.grad, sep='\n')
