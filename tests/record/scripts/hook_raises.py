# A hook that raises: the hooks before it ran and are listed, the one that
# raised is listed too (raised, no after) on the step that failed, and the
# caught error leaves x.grad None.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
z = y.sum()


def fine(grad):
    return grad * 2


def check(grad):
    raise ValueError("gradient too large")


y.register_hook(fine)
y.register_hook(check)
try:
    z.backward()
except ValueError as e:
    print("caught:", e)
print(x.grad)
