# micrograd's first lecture, with PyTorch: each forward op's value printed.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(-3.0, requires_grad=True)
c = torch.tensor(10.0, requires_grad=True)
e = a * b
d = e + c
f = torch.tensor(-2.0, requires_grad=True)
L = d * f
print("e =", e.item())
print("d =", d.item())
print("L =", L.item())
L.backward()
print("a.grad =", a.grad.item())
