# backward() on a non-scalar needs a gradient argument.
# L = 10 - d is a 3x3 tensor: L.backward() alone would fail with "grad can be
# implicitly created only for scalar outputs". Either sum it first or pass
# torch.ones(L.shape) as dL (both give the same gradients), then take a step.
import torch

a = torch.tensor([[0.5, -1.0, 1.5], [2.0, 1.0, -0.5], [1.0, 3.0, -2.0]], requires_grad=True)
w1 = torch.tensor([[1.0, 2.0, -1.0], [0.5, 0.5, 0.5], [-1.5, 1.0, 2.0]], requires_grad=True)
w2 = torch.tensor([[0.25, -0.5, 1.0], [1.0, -1.0, 2.0], [0.5, 1.5, -0.25]], requires_grad=True)
w3 = torch.tensor([[1.0, -1.0, 1.0], [2.0, 0.5, -2.0], [1.0, 1.5, 1.0]], requires_grad=True)
w4 = torch.tensor([[-0.5, 1.0, 2.0], [1.0, 1.0, 0.25], [2.0, -1.0, 0.5]], requires_grad=True)

b = w1 * a
c = w2 * a
d = w3 * b + w4 * c
L = (10 - d)
print(L.shape, L.requires_grad)

# L.backward() here would raise the RuntimeError: L has 9 elements.
L.backward(torch.ones(L.shape))
print(w1.grad)

# One step of gradient descent. The new w1 is the result of an operation, so
# it is no longer a leaf: it has a grad_fn and no .grad of its own.
learning_rate = 0.5
w1 = w1 - learning_rate * w1.grad
print(w1)
print(w1.is_leaf)
