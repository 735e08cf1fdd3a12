import torch
import torch.nn.functional as F

# Messages that name a dtype or a kernel differ on CUDA: tests/core/test-ops-conv.c has them.

x = torch.arange(2 * 3 * 7 * 7, dtype=torch.float32).reshape(2, 3, 7, 7).div(100)
w = torch.ones(4, 3, 3, 3)
tries = [
    lambda: F.conv2d(x, torch.ones(4, 2, 3, 3)),
    lambda: F.conv2d(x, torch.ones(4, 3, 9, 9)),
    lambda: F.conv2d(x, w, torch.ones(3)),
    lambda: F.conv2d(x[0, 0], w),
    lambda: F.conv1d(x, w),
    lambda: F.conv2d(x, w, stride=2, padding='same'),
    lambda: F.conv2d(x, w, padding='full'),
    lambda: F.conv2d(x, torch.ones(3, 3, 3, 3), groups=2),
    lambda: F.conv2d(x, torch.ones(2, 3, 3, 3), groups=3),
    lambda: F.conv2d(x, w, stride=0),
    lambda: F.conv2d(x, w, padding=-1),
    lambda: F.conv2d(x, w, dilation=0),
    lambda: F.conv2d(x, w, groups=0),
    lambda: F.conv2d(x, w, stride=(1, 2, 3)),
    lambda: F.conv2d(x, torch.ones(4, 3, 3)),
    lambda: F.conv_transpose2d(x, w),
    lambda: F.conv_transpose2d(x, torch.ones(3, 3, 3, 3), output_padding=1),
    lambda: F.max_pool2d(x, 9),
    lambda: F.max_pool2d(x, 2, padding=2),
    lambda: F.max_pool2d(x, 2, stride=-1),
    lambda: F.max_pool2d(x, 2, padding=-1),
    lambda: F.max_pool2d(x, (2, 2, 2)),
    lambda: F.max_pool2d(x, 2, dilation=0),
    lambda: F.max_pool2d(x[0, 0], 2),
    lambda: F.avg_pool2d(x, 2, padding=2),
    lambda: F.avg_pool2d(x, 2, divisor_override=0),
    lambda: F.avg_pool2d(x, (1, 2, 3)),
    lambda: F.adaptive_avg_pool2d(x, (1, 2, 3)),
    lambda: F.adaptive_avg_pool2d(x, -1),
    lambda: F.max_pool1d(x, 2),
    lambda: F.avg_pool1d(x, 2),
]
for t in tries:
    try:
        t()
        print("no error")
    except Exception as e:
        print(type(e).__name__ + ":", e)
