# torch.nn.Parameter: a tensor subclass that a Module registers on assignment.
import torch


class Parameter(torch.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torch.empty(0)
        return torch.Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return 'Parameter containing:\n' + super().__repr__()


class UninitializedParameter(Parameter):
    def __new__(cls, *args, **kwargs):
        raise NotImplementedError("torch.nn.UninitializedParameter (lazy modules) is not "
                                  "supported by Chainrule yet")
