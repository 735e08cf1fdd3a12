# Watching and changing gradients with register_hook.
# A hook runs when the gradient of its tensor has been computed; it can print
# the gradient, or return a new one that replaces it for the rest of backward.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
z = y.sum()


def show(grad):
    print("gradient reaching y:", grad)


y.register_hook(show)
x.register_hook(lambda grad: grad * 10)   # scale x's gradient by 10

z.backward()
print("x.grad:", x.grad)                 # 10 * 2x
