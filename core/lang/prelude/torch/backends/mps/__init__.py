# torch.backends.mps: Apple's Metal backend, which Chainrule does not have
# (the tutorials' "cuda, else mps, else cpu" then picks the CPU).


def is_available():
    return False


def is_built():
    return False
