# Tensor.new_* (buffers made like an existing tensor), torch.remainder of a
# number, << and >> on integer tensors (hashing, bit masks).
import torch

w = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
idx = torch.tensor([3, 1, 4])
print(w.new_full((2, 3), 0.5))
print(idx.new_full([2], 2.9), idx.new_full(size=(1,), fill_value=True))
print(w.new_full((), 7), w.new_full((1,), 3, dtype=torch.float32, requires_grad=True))
print(w.new_zeros(2, 2), w.new_ones((3,), dtype=torch.int64), idx.new_zeros([]).dtype)
e = w.new_empty((4, 5))
print(e.shape, e.dtype, e.requires_grad, w.new_empty(0), w.new_empty(2, requires_grad=True).is_leaf)
mask = w.new_zeros(w.shape, dtype=torch.bool)
print(mask)
try:
    idx.new_full(3, 1.0)
except TypeError as e:
    print("TypeError:", e)
try:
    idx.new_full((2,))
except TypeError as e:
    print("TypeError:", e)

# remainder with the number first: no gradient (NotImplemented), as 5 % x.
x = torch.tensor([2.0, 3.0, -4.0], requires_grad=True)
r = torch.remainder(5, x)
print(r, r.grad_fn.name())
print(torch.remainder(5, torch.tensor([2, 3])), torch.remainder(5.5, torch.tensor([2, 3])))
print(torch.remainder(-7, torch.tensor([2.0, -3.0])), (7 % x))
print(torch.remainder(x, 1.5), torch.remainder(x, torch.tensor(2.0)).grad_fn.name())

# Shifts.
a = torch.tensor([1, -8, 5, 3])
print(a << 2, a >> 1, 2 << a.abs(), a << torch.tensor([0, 1, 2, 3]))
print(torch.bitwise_left_shift(a, 3), a.bitwise_right_shift(torch.tensor([1, 1, 2, 2])))
print(torch.tensor([True, False]) << 1, torch.tensor(3, dtype=torch.uint8) << 5)
h = torch.tensor([12345, 678, 91011])
h = (h ^ (h >> 3)) * 31 & 0xFFFF
print(h)
b = a.clone()
b <<= 1
print(b)
b.bitwise_right_shift_(2)
print(b)
try:
    torch.tensor([1.5]) << 2
except RuntimeError as e:
    # The message names the device's kernel ("lshift_cpu").
    print("RuntimeError:", str(e).split('" ')[1])
