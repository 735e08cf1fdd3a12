# Tensor.unfold and as_strided as tutorials use them: a ViT's patches, a
# moving average over a sequence, a 1-d convolution written by hand, and
# strides shown to explain views.
import torch

torch.manual_seed(0)
img = torch.randn(1, 3, 8, 8, requires_grad=True)
p = 4
patches = img.unfold(2, p, p).unfold(3, p, p)
print(patches.shape, patches.stride(), patches.grad_fn.name(), patches._is_view())
g = patches.grad_fn
print(g._saved_dimension, g._saved_self_sizes, g._saved_size, g._saved_step)
tokens = patches.permute(0, 2, 3, 1, 4, 5).reshape(1, 4, 3 * p * p)
proj = torch.nn.Linear(3 * p * p, 5)
out = proj(tokens)
out.pow(2).sum().backward()
print(out.shape, img.grad[0, 0, :2])

x = torch.tensor([1.0, 4.0, 2.0, 8.0, 5.0, 7.0], requires_grad=True)
windows = x.unfold(0, 3, 1)
avg = windows.mean(-1)
print(windows, avg)
avg.sum().backward()
print(x.grad)

# A 1-d convolution as windows times a kernel, against conv1d.
signal = torch.randn(1, 1, 10, requires_grad=True)
kernel = torch.randn(1, 1, 3, requires_grad=True)
by_hand = (signal.unfold(2, 3, 2) * kernel.view(1, 1, 1, 3)).sum(-1)
reference = torch.nn.functional.conv1d(signal, kernel, stride=2)
print(torch.allclose(by_hand, reference), by_hand)
by_hand.sum().backward()
print(signal.grad, kernel.grad)
print(torch.arange(10.).unfold(0, 4, 3), torch.tensor(5.0).unfold(0, 1, 1))

# as_strided: the same memory seen with other strides.
base = torch.arange(12.0)
m = base.as_strided((3, 4), (4, 1))
t = base.as_strided((4, 3), (1, 4))
print(m, t, t.is_contiguous(), m.data_ptr() == base.data_ptr())
w = torch.arange(6.0, requires_grad=True)
o = w.as_strided((2, 2), (1, 2), 1)
print(o, o.grad_fn.name())
(o * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(w.grad)
s = torch.arange(5.0, requires_grad=True)
overlapping = torch.as_strided(s, (3, 3), (1, 1))
overlapping.sum().backward()
print(overlapping, s.grad)

for f in [lambda: x.unfold(0, 7, 1), lambda: x.unfold(0, 2, 0), lambda: x.unfold(1, 2, 1),
          lambda: base.as_strided((2, 2), (1, 2), 100)]:
    try:
        f()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__ + ":", e)
