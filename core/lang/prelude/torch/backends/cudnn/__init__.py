# torch.backends.cudnn: Chainrule's CUDA backend uses its own kernels and
# cuBLAS, not cuDNN. Scripts set benchmark/deterministic for speed or
# reproducibility; the flags are kept and read back as set.
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
