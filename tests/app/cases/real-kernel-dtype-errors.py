# cuda: cpu-only, the dtype errors name PyTorch's CPU kernels ("lshift_cpu", "glu_cpu")
# The dtypes PyTorch 1.13's kernels refuse for ops real code meets: shifts of
# bool and float, glu of integers, median and kthvalue of bool.
import torch
import torch.nn.functional as F

for call in (lambda: torch.tensor([True]) << torch.tensor([True]),
             lambda: torch.tensor([True, False]) >> 1,
             lambda: torch.bitwise_left_shift(torch.tensor([True]), torch.tensor([True])),
             lambda: torch.tensor([1.5]) << 1,
             lambda: F.glu(torch.arange(4)),
             lambda: torch.tensor([True, False]).median(),
             lambda: torch.tensor([True, False]).median(0),
             lambda: torch.tensor([True, False]).kthvalue(1)):
    try:
        print(call())
    except RuntimeError as err:
        print(err)
