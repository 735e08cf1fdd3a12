# torch.xlogy with a number first is PyTorch's XlogyBackward1 (xlogy.Scalar_Self);
# << and >> shift int32/uint8 as C ints do (the count mod 32), int64 mod 64.
# (Their refusal of bool is in real-kernel-dtype-errors.)
import torch

x = torch.tensor([0.5, 2., 0., -1.], requires_grad=True)
y = torch.xlogy(2., x)
print(y, y.grad_fn, y.grad_fn._saved_self, y.grad_fn._saved_other)
print(y.grad_fn.next_functions)
y3 = torch.xlogy(3, x)
print(y3, y3.grad_fn._saved_self)
(y + y3).sum().backward()
print(x.grad)
print(torch.xlogy(0, x), torch.xlogy(x, 2.).grad_fn, torch.xlogy(x, x).grad_fn)

w = torch.tensor([1.5, 3.], requires_grad=True)
g, = torch.autograd.grad(torch.xlogy(2, w).sum(), w, create_graph=True)
print(g, g.grad_fn)
print(torch.autograd.grad(g.sum(), w))

for dt in (torch.int32, torch.uint8, torch.int64):
    a = torch.tensor([1, 3, -5, 100, 7], dtype=dt) if dt != torch.uint8 \
        else torch.tensor([1, 3, 250, 100, 7], dtype=dt)
    b = torch.tensor([0, 31, 33, 8, 64], dtype=dt)
    print(a << b, a >> b)
    print(a << 3, a >> 2, a << 40)
    c = a.clone()
    c <<= torch.tensor([1, 2, 3, 4, 5], dtype=dt)
    print(c, torch.bitwise_right_shift(a, 35))

print(torch.tensor([1, 2], dtype=torch.int32) << torch.tensor([1, 34]))
print(torch.tensor([-8, 8]) >> torch.tensor([70, 1]), torch.tensor([-8, 8]) << torch.tensor([-1, 64]))
