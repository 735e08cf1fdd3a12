# create_graph=True: the gradient has a graph of its own, and a second
# backward through it gives the second derivative.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()
print(g, x.grad)
