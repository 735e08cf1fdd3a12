# Python operators with tensors and numbers on either side (grad_fn shapes as
# PyTorch's), int/bool tensors, comparisons, `in`, augmented assignment, truthiness.
import torch
x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
y = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
print(x + y, x - y, x * y, x / y)
print(x + 1, 2 + x, x - 1, 10 - x, 3 * x, x / 4, 1 / x)
print(x ** 2, 2 ** x, x ** y, -x, +x)
# floor division and remainder record no gradient in Chainrule (PyTorch shows
# NotImplemented / RemainderBackward0): compare on values only.
xd = x.detach()
print(xd // 3, xd % 3, 7 // xd, 7 % xd)
m = torch.tensor([[1., 2.], [3., 4.]])
print(m @ m, m @ torch.tensor([1., 1.]))
print((x + y).grad_fn, (x + 1).grad_fn, (2 + x).grad_fn)
print((x - y).grad_fn, (x - 1).grad_fn, (10 - x).grad_fn)
print((x * y).grad_fn, (3 * x).grad_fn, (x / y).grad_fn, (x / 4).grad_fn)
print((1 / x).grad_fn, (1 / x).grad_fn.next_functions[0][0])
print((x ** 2).grad_fn, (x ** y).grad_fn, (2 ** x).grad_fn, (-x).grad_fn)
i = torch.tensor([1, 2, 3])
print(i + 1, i * 2.5, i / 2, i // 2, i ** 2, -i, ~i)
print(i + True, True + i, i * x)
b = torch.tensor([True, False, True])
print(~b, b & torch.tensor([True, True, False]), b | torch.tensor([False, False, True]), b ^ b)
print(x > 1.5, x >= 2, x < y, x <= 2, x == 2, x != 2)
print(1 < x, 2 == x, x == None, x != "a")
print(2. in x, 3 in x)
z = x * 2
z += 1
print(z.grad_fn)
z *= 3
print(z.grad_fn)
z -= y
print(z.grad_fn)
z /= 2
print(z.grad_fn, z)
w = torch.ones(2)
w += 1
w -= torch.tensor([0.5, 0.25])
w *= 2
w /= 4
w **= 2
print(w)
t = torch.tensor([0.5])
if t:
    print("truthy")
print(bool(torch.tensor(0.)), not torch.tensor([1]), torch.tensor(2) and 5, torch.tensor(0) or 7)
n = 0
while torch.tensor(n) < 3:
    n += 1
print(n)
