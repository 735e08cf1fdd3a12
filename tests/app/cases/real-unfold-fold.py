# F.unfold (Im2ColBackward0) and F.fold (Col2ImBackward0): the blocks a
# convolution's kernel sees as columns and back, batched or not, with
# padding, stride and dilation; gradients; a convolution written with unfold
# as tutorials do; PyTorch's errors.
import torch
import torch.nn.functional as F

x = torch.arange(2 * 2 * 3 * 4.).view(2, 2, 3, 4).requires_grad_()
u = F.unfold(x, (2, 2), padding=1, stride=2)
print(u.shape, u, u.grad_fn)
f = F.fold(u, (3, 4), (2, 2), padding=1, stride=2)
print(f, f.grad_fn)
(u * u).sum().backward()
print(x.grad)

torch.manual_seed(0)
c = torch.randn(1, 2 * 3 * 2, 6, requires_grad=True)
img = F.fold(c, output_size=(4, 5), kernel_size=(3, 2), dilation=(1, 2))
print(img)
img.pow(2).sum().backward()
print(c.grad)
print(F.unfold(torch.ones(2, 3, 3), 2), F.fold(torch.ones(8, 6), (3, 4), 2))

w = torch.randn(4, 2, 3, 3, requires_grad=True)
xx = torch.randn(1, 2, 5, 5)
conv = (w.view(4, -1) @ F.unfold(xx, 3, padding=1)).view(1, 4, 5, 5)
print(torch.allclose(conv, F.conv2d(xx, w, padding=1), atol=1e-5))
conv.sum().backward()
print(w.grad)

for f in [lambda: F.unfold(torch.ones(3, 4), 2), lambda: F.unfold(torch.ones(3), 2),
          lambda: F.fold(torch.ones(2, 8, 5), (3, 4), 2),
          lambda: F.fold(torch.ones(1, 8, 6), (3, 4), 2, dilation=2)]:
    try:
        print(f())
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
