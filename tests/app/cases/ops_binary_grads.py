# Gradients of binary operations: division and pow with respect to both inputs,
# maximum/minimum (ties split the gradient), and Python numbers on either side.
import torch
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([2.0, 2.0, 0.5], requires_grad=True)
(a / b).sum().backward()
print(a.grad, b.grad)
a.grad = None
b.grad = None
(a ** b).sum().backward()
print(a.grad)
print(b.grad)
a.grad = None
b.grad = None
m = torch.maximum(a, b)
n = torch.minimum(a, b)
print(m, n)
(m + 2 * n).sum().backward()
print(a.grad, b.grad)
a.grad = None
(5 / a).sum().backward()
print(a.grad)
a.grad = None
(2 ** a).sum().backward()
print(a.grad)
