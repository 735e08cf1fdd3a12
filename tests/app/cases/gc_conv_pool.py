# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of
# convolutions (stride, padding, dilation, groups, transposed) and pooling.
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)


def check(name, f, *inputs, gg=True):
    # gg=False where PyTorch 1.13 has no double backward for the op.
    first = gradcheck(f, inputs, raise_exception=False)
    second = gradgradcheck(f, inputs, raise_exception=False) if gg else '-'
    node = f(*inputs).grad_fn
    print(name, first, second, node.name() if node is not None else None)


def r(*shape):
    return torch.randn(*shape, dtype=torch.double, requires_grad=True)


x = r(1, 2, 5)
w = r(2, 2, 3)
b = r(2)
check('conv1d', lambda x, w, b: F.conv1d(x, w, b), x, w, b)
check('conv1d_s2p1d2', lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2), x, w, b)
check('conv1d_groups', lambda x, w: F.conv1d(x, w, groups=2, padding=1), x, r(2, 1, 3))
check('conv1d_same', lambda x, w: F.conv1d(x, w, padding='same'), x, r(3, 2, 2))
x2 = r(1, 2, 4, 4)
check('conv2d', lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                                         groups=2), x2, r(2, 1, 2, 2), b)
check('conv2d_plain', lambda x, w: F.conv2d(x, w), r(2, 1, 3, 3), r(2, 1, 2, 2))
wt = r(2, 1, 2)
check('conv_transpose1d', lambda x, w, b: F.conv_transpose1d(x, w, b[:1], stride=2, padding=1,
                                                             output_padding=1), x, wt, b)
check('conv_transpose2d', lambda x, w, b: F.conv_transpose2d(x, w, torch.cat([b, b]), stride=2,
                                                             padding=(0, 1), groups=2),
      r(1, 2, 3, 3), r(2, 2, 2, 2), b)
check('conv_transpose2d_dil', lambda x, w: F.conv_transpose2d(x, w, dilation=2, stride=(1, 2)),
      r(1, 1, 2, 3), r(1, 2, 2, 2))
check('max_pool1d', lambda x: F.max_pool1d(x, 2, stride=1, padding=1), x)
check('max_pool2d', lambda x: F.max_pool2d(x, 2, stride=2), x2)
check('max_pool2d_dil', lambda x: F.max_pool2d(x, 2, stride=1, dilation=2, ceil_mode=True), x2)
check('avg_pool1d', lambda x: F.avg_pool1d(x, 3, stride=2, padding=1), x)
check('avg_pool2d', lambda x: F.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False), x2)
check('avg_pool2d_ceil', lambda x: F.avg_pool2d(x, 3, stride=2, ceil_mode=True), x2)
check('avg_pool2d_div', lambda x: F.avg_pool2d(x, 2, padding=1, divisor_override=3), x2)
check('adaptive_avg_pool1d', lambda x: F.adaptive_avg_pool1d(x, 3), x)
check('adaptive_avg_pool2d', lambda x: F.adaptive_avg_pool2d(x, (3, 2)), x2)
check('adaptive_max_pool2d', lambda x: F.adaptive_max_pool2d(x, (3, 2)), x2)
