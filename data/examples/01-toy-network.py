# The toy network: five leaf tensors, one loss, one backward pass.
# b = w1*a and c = w2*a feed d = w3*b + w4*c; L = (10 - d).sum() is a scalar,
# so L.backward() can start from dL/dL = 1 and apply the chain rule back to
# every leaf. Step through the backward pass to see each local gradient.
import torch

a = torch.tensor([[0.5, -1.0, 1.5], [2.0, 1.0, -0.5], [1.0, 3.0, -2.0]], requires_grad=True)
w1 = torch.tensor([[1.0, 2.0, -1.0], [0.5, 0.5, 0.5], [-1.5, 1.0, 2.0]], requires_grad=True)
w2 = torch.tensor([[0.25, -0.5, 1.0], [1.0, -1.0, 2.0], [0.5, 1.5, -0.25]], requires_grad=True)
w3 = torch.tensor([[1.0, -1.0, 1.0], [2.0, 0.5, -2.0], [1.0, 1.5, 1.0]], requires_grad=True)
w4 = torch.tensor([[-0.5, 1.0, 2.0], [1.0, 1.0, 0.25], [2.0, -1.0, 0.5]], requires_grad=True)

b = w1 * a
c = w2 * a
d = w3 * b + w4 * c
L = (10 - d).sum()
print("The grad fn for a is", a.grad_fn)
print("The grad fn for d is", d.grad_fn)
print("L =", L)

L.backward()

# dL/dw3 = -b, dL/dw4 = -c, dL/dw1 = -w3*a, dL/dw2 = -w4*a,
# dL/da = -(w3*w1 + w4*w2): the two paths through b and c add up.
print("dL/da =", a.grad)
print("dL/dw1 =", w1.grad)
print("dL/dw2 =", w2.grad)
print("dL/dw3 =", w3.grad)
print("dL/dw4 =", w4.grad)
