# torch.backends.cuda: matmul.allow_tf32 as scripts read and set it.
import torch


class _MatmulFlags:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    return torch.cuda.is_available()

