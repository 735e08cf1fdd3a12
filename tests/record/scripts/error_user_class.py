# An exception class of the script's own, raised by a hook during backward
# (caught) and by the script (uncaught): the record names the class, as the
# traceback does, not its builtin base.
import torch
class GradTooBig(RuntimeError):
    pass
class Diverged(ValueError):
    pass
def guard(g):
    raise GradTooBig("gradient too big")
w = torch.ones(2, requires_grad=True)
y = w * 3
y.register_hook(guard)
try:
    y.sum().backward()
except GradTooBig as e:
    print("caught", e)
loss = (w * w).sum()
if loss.item() > 1:
    raise Diverged("loss %.1f" % loss.item())
