# requires_grad is contagious, and grad_fn records who made a tensor.
# A result requires grad as soon as one input does; leaves (made by you) have
# grad_fn None, results of operations point at their backward function.
# The values are random: only flags and grad_fn names are printed.
import torch

x = torch.randn(3, 3)                      # requires_grad=False by default
y = torch.randn(3, 3)                      # requires_grad=False by default
z = torch.randn((3, 3), requires_grad=True)
a = x + y      # neither input requires grad, so neither does a
print(a.requires_grad)
b = a + z      # z requires grad, so b does too
print(b.requires_grad)

print(x.grad_fn)    # x is a leaf: no grad_fn
print(z.grad_fn)    # z is a leaf too, even though it requires grad
print(a.grad_fn)    # a does not require grad: no grad_fn
print(b.grad_fn)
print("leaves:", x.is_leaf, z.is_leaf, a.is_leaf, "result:", b.is_leaf)

# requires_grad can also be switched on after creation.
t2 = torch.zeros(3, 3)
t2.requires_grad = True
print(t2.requires_grad, t2.grad)   # no backward yet, so no gradient
