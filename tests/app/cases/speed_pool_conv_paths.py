# Max pooling and convolution through every loop of their CPU kernels: four
# outputs at once where the windows are inside the row, one at a time at the
# edges (padding, ceil_mode), strides 1/2/3, dilation, ties, NaN and -inf.
import torch
import torch.nn.functional as F


def grid(n, c, h, w, mod=13):
    v = (torch.arange(n * c * h * w) * 37 % mod).float() / 4 - 1.5
    return v.reshape(n, c, h, w)


x = grid(2, 3, 11, 19)
x[0, 0, 2, 5] = float("nan")
x[1, 2, 7, 0] = float("-inf")
x[1, 1, 3, 3:9] = float("-inf")
for k, s, p, d, ceil in [(2, 2, 0, 1, False), (2, 1, 0, 1, False), (3, 2, 1, 1, False),
                         (3, 3, 0, 1, True), (2, 2, 1, 2, False), (3, 1, 1, 1, False),
                         ((2, 3), (1, 2), (1, 0), 1, True)]:
    v, i = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    finite = torch.where(v != v, torch.tensor(9.0), torch.clamp(v, min=-9.0))
    print(tuple(v.shape), finite.sum().item(), (v != v).sum().item(), i.sum().item(),
          i[0, 0].flatten()[:12].tolist())

y = grid(2, 2, 8, 24).requires_grad_()
out = F.max_pool2d(y, 2)
(out * torch.arange(out.numel()).reshape(out.shape)).sum().backward()
print(y.grad.sum().item(), y.grad[1, 1, 6].tolist())

for stride, pad, dil in [(1, 0, 1), (1, 2, 1), (2, 1, 1), (1, 1, 2)]:
    inp = (grid(3, 2, 9, 13, 11) + 0.011).requires_grad_()
    w = (grid(4, 2, 3, 3, 7) / 3 + 0.0137).requires_grad_()
    b = torch.tensor([0.5, -0.25, 0.125, 1.0], requires_grad=True)
    o = F.conv2d(inp, w, b, stride, pad, dil)
    (o * o).sum().backward()
    # Rounded: PyTorch's oneDNN adds in another order (last bits differ).
    r = lambda t: [round(v, 2) for v in t.flatten().tolist()]
    print(tuple(o.shape), round(o.sum().item(), 1), round(inp.grad.sum().item(), 1),
          r(inp.grad[2, 1, 4]), r(w.grad[:, :, 1]), r(b.grad))
