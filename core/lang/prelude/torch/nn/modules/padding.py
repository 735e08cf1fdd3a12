# The padding layers: F.pad with a fixed padding, given as one int for every
# side or as a tuple (left, right[, top, bottom]).
from torch.nn import functional as F
from torch.nn.modules.module import Module


def _sides(padding, n):
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    return tuple(padding)


class _ConstantPadNd(Module):
    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, 'constant', self.value)

    def extra_repr(self):
        return 'padding={}, value={}'.format(self.padding, self.value)


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _sides(padding, 1)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _sides(padding, 2)


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _sides(padding, 3)


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.)

    def extra_repr(self):
        return '{}'.format(self.padding)


class _ModePadNd(Module):
    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return '{}'.format(self.padding)


class ReflectionPad1d(_ModePadNd):
    _mode = 'reflect'

    def __init__(self, padding):
        super().__init__()
        self.padding = _sides(padding, 1)


class ReflectionPad2d(_ModePadNd):
    _mode = 'reflect'

    def __init__(self, padding):
        super().__init__()
        self.padding = _sides(padding, 2)


class ReplicationPad1d(_ModePadNd):
    _mode = 'replicate'

    def __init__(self, padding):
        super().__init__()
        self.padding = _sides(padding, 1)


class ReplicationPad2d(_ModePadNd):
    _mode = 'replicate'

    def __init__(self, padding):
        super().__init__()
        self.padding = _sides(padding, 2)
