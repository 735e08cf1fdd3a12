# Binary rows of core/cr-binary-ops.def: values, broadcasting, type promotion
import torch

a = torch.tensor([[1.5, -2.0, 0.0], [3.0, -0.5, 4.0]])
b = torch.tensor([2.0, -1.5, 0.25])
i = torch.tensor([7, -3, 0])
j = torch.tensor([2, 2, -5])
m = torch.tensor([True, False, True])
d = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)

for name in ["atan2", "hypot", "copysign", "xlogy", "logaddexp", "logaddexp2",
             "fmax", "fmin", "fmod", "remainder", "maximum", "minimum"]:
    f = getattr(torch, name)
    r = f(a, b)
    print(name, r.shape, r.dtype)
    print(r)
    print(f(b, d).dtype, f(b, d))

for name in ["atan2", "copysign", "xlogy", "fmax", "fmin", "fmod", "remainder"]:
    f = getattr(torch, name)
    r = f(i, j)
    print(name, "int", r.dtype, r)

for name in ["atan2", "copysign", "xlogy", "fmax", "fmin"]:
    r = getattr(torch, name)(m, m)
    print(name, "bool", r.dtype, r)

print(torch.fmod(a, 2), torch.fmod(i, 2))
print(torch.remainder(a, -2), a % 1.5, i % 4, i % -4)
print(torch.copysign(a, -1), torch.copysign(i, 2.5))
print(torch.xlogy(b, 3), torch.xlogy(2, b))
print(a.atan2(b), torch.arctan2(b, a[0]), a.hypot(b))
print(b.logaddexp(a), a.fmax(b), a.fmin(b))
nan = float("nan")
x = torch.tensor([nan, 1.0, nan, -0.0])
y = torch.tensor([2.0, nan, nan, 0.0])
print(torch.fmax(x, y), torch.fmin(x, y), torch.maximum(x, y), torch.minimum(x, y))
print(torch.xlogy(torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, nan, float("inf")])))
inf = float("inf")
print(torch.logaddexp(torch.tensor([inf, -inf, 1e30]), torch.tensor([inf, -inf, 1e30])))
print(torch.logaddexp2(torch.tensor([-inf, 3.0]), torch.tensor([-inf, 3.0])))
print(torch.greater(a, b), torch.less_equal(i, 0), torch.not_equal(m, True))
print(torch.eq(a, 1.5), a.gt(0), i.le(j), torch.logical_and(a, b), torch.logical_or(i, m))
print(torch.floor_divide(a, b), torch.floor_divide(7, b), i.floor_divide(j))
