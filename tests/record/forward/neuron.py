# A neuron with tanh, then a second use of its output: names printed with values.
import torch

x1 = torch.tensor(2.0, requires_grad=True)
x2 = torch.tensor(0.0, requires_grad=True)
w1 = torch.tensor(-3.0, requires_grad=True)
w2 = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(6.8813735870195432, requires_grad=True)
n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)
s = torch.sigmoid(n)
r = torch.relu(o - s)
q = o / s
print("n =", n.item())
print("o =", o.item())
print("s =", s.item())
print("q =", q.item())
(o + q).backward()
