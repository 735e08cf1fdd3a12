import torch
import torch.nn.functional as F

x = torch.arange(2 * 4 * 3 * 3, dtype=torch.float64).reshape(2, 4, 3, 3).mul(0.3).cos().requires_grad_()
w = torch.arange(4 * 3 * 2 * 2, dtype=torch.float64).reshape(4, 3, 2, 2).mul(0.2).sin().requires_grad_()
b = torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64, requires_grad=True)

y = F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
print(y.shape, y.grad_fn.name())
print(y[0, 2])
y.mul(y).sum().backward()
print(x.grad[1, 3])
print(w.grad[0])
print(b.grad)

wg = torch.arange(4 * 1 * 3 * 3, dtype=torch.float64).reshape(4, 1, 3, 3).div(10)
print(F.conv_transpose2d(x, wg, groups=2, dilation=2).shape)
print(F.conv_transpose2d(x[0], w).shape, F.conv_transpose2d(x[0], w).grad_fn.name())

x1 = torch.arange(2 * 3 * 5, dtype=torch.float32).reshape(2, 3, 5).sin().requires_grad_()
w1 = torch.arange(3 * 2 * 3, dtype=torch.float32).reshape(3, 2, 3).cos().requires_grad_()
y1 = F.conv_transpose1d(x1, w1, stride=3, padding=2, output_padding=1)
print(y1)
y1.sum().backward()
print(x1.grad, w1.grad)
