# f-strings as teaching scripts use them: float and int format specs, widths,
# alignment, signs, percentages, !r, and 0-d tensors formatted like numbers.
import torch
loss = 0.123456789
step = 7
name = "w1"
print(f"step {step:3d} loss {loss:.4f}")
print(f"{loss:10.3e}|{loss:<10.2f}|{loss:^10.1%}|")
print(f"{step:05d} {step:+d} {step:x} {step:b} {1234567:,}")
print(f"{name!r} {name:>6} {name:*^8}")
print(f"{3.0} {1e-5} {2.5e16} {0.1 + 0.2}")
print(f"{-0.0:.2f} {float('inf')} {1/3:.10g}")
t = torch.tensor(0.25)
print(f"t = {t:.3f}, item = {t.item()}")
print(f"{t}")
print(f"{torch.tensor([1.0, 2.0])}")
g = torch.tensor(2.302585, requires_grad=True) * 1
print(f"grad = {g.item():.6f}")
x = 5
print(f"{x=}, {x * 2 = }")
print("{} + {} = {:.2f}".format(1, 2, 3))
print("%.3f %d %s" % (3.14159, 42, "text"))
