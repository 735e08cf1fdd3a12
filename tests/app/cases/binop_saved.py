# grad_fn._saved_self / _saved_other / _saved_result of the binary rows
import torch
x = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
y = torch.tensor([2.0, -1.5, 0.25], requires_grad=True)
c = torch.tensor([2.0, 1.5, 0.25])
def show(label, t, names):
    out = []
    for n in names:
        try:
            v = getattr(t.grad_fn, "_saved_" + n)
            out.append(n + "=" + (repr(v) if not isinstance(v, torch.Tensor) else str(v.tolist())))
        except AttributeError:
            out.append(n + ":AttributeError")
    print(label, t.grad_fn.name(), " ".join(out))
N = ["self", "other", "result"]
show("atan2", torch.atan2(x, y), N)
show("atan2c", torch.atan2(x, c), N)
show("hypot", torch.hypot(x, y), N)
show("copysign", torch.copysign(x, y), N)
show("copysign1", torch.copysign(x, -1.0), N)
show("xlogy", torch.xlogy(x, y.abs()), N)
show("xlogy2", torch.xlogy(x, 3.0), N)
show("fmod", torch.fmod(x, y), N)
show("fmod0", torch.fmod(x, 2.0), N)
show("remainder0", torch.remainder(x, 2), N)
show("fmax", torch.fmax(x, y), N)
show("logaddexp", torch.logaddexp(x, y), N)
show("mul", x * y, N)
show("mulc", x * c, N)
show("div", x / y, N)
g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
m = g.grad_fn.next_functions[1][0]
print(m.name(), m._saved_other, m._saved_self if hasattr(m, "_saved_self") else "no self")
