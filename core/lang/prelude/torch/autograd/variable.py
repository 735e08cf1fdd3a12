# torch.autograd.Variable, the alias PyTorch keeps for old code: since 0.4 a
# Variable is a Tensor. Variable(t, requires_grad=True) is a new leaf that
# shares t's data, and every tensor is an instance of Variable (PyTorch's
# VariableMeta.__instancecheck__), though Tensor is no subclass of it.
import torch


class Variable:
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            data = torch.empty(0)
        if not isinstance(data, torch.Tensor):
            raise TypeError("Variable data has to be a tensor, but got " + type(data).__name__)
        if volatile:
            torch._C._warn("volatile was removed (Variable.volatile is always False)")
        return data.detach().requires_grad_(requires_grad)

    @staticmethod
    def __cr_instancecheck__(other):
        return isinstance(other, torch.Tensor)
