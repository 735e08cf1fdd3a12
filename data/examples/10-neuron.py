# One neuron, micrograd style: o = tanh(w1*x1 + w2*x2 + b) on 0-d tensors.
# Every intermediate value is a scalar, so the graph is easy to follow and each
# gradient can be checked by hand: do/dn = 1 - o**2, then the chain rule.
import torch

x1 = torch.tensor(2.0, requires_grad=True)
x2 = torch.tensor(0.0, requires_grad=True)
w1 = torch.tensor(-3.0, requires_grad=True)
w2 = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(6.8813735870195432, requires_grad=True)

n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)
print("n =", n.item())
print("o =", o.item())

o.backward()
print("do/dn =", 1 - o.item() ** 2)
print("x1.grad", x1.grad.item())
print("w1.grad", w1.grad.item())
print("x2.grad", x2.grad.item())
print("w2.grad", w2.grad.item())
