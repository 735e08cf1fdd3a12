# copy: Python's shallow and deep copy, for the objects scripts copy
# (a model's state_dict for the best epoch, a whole nn.Module, lists and
# dicts of tensors). Like Python's module it asks an object for
# __copy__/__deepcopy__ first; other instances are copied through their
# __dict__, as copyreg's default __reduce_ex__ does.
import torch

__all__ = ['Error', 'copy', 'deepcopy']


class Error(Exception):
    pass


error = Error

_ATOMIC = (type(None), bool, int, float, str, type, range,
           type(len), type(lambda: None), type(torch.device('cpu')), torch.dtype)


def _is_atomic(x):
    return isinstance(x, _ATOMIC) or callable(x) and not hasattr(x, '__dict__')


def copy(x):
    """Shallow copy: a new container holding the same items."""
    cls = type(x)
    if _is_atomic(x):
        return x
    copier = getattr(cls, '__copy__', None)
    if copier is not None:
        return copier(x)
    if cls is list:
        return list(x)
    if cls is tuple:
        return x
    if cls is set:
        return set(x)
    if isinstance(x, dict):
        y = cls()
        for key, value in x.items():
            y[key] = value
        return y
    if isinstance(x, torch.Tensor):
        raise Error("un(shallow)copyable object of type %s" % cls)
    y = object.__new__(cls)
    y.__dict__.update(x.__dict__)
    return y


def deepcopy(x, memo=None):
    """Deep copy: x and, recursively, everything it holds; an object met
    twice is copied once (memo, keyed by id)."""
    if memo is None:
        memo = {}
    key = id(x)
    if key in memo:
        return memo[key]
    if _is_atomic(x):
        return x
    cls = type(x)
    copier = getattr(x, '__deepcopy__', None)
    if isinstance(x, torch.Tensor):
        y = _deepcopy_tensor(x, memo)
    elif copier is not None:
        y = copier(memo)
    elif cls is list:
        y = []
        memo[key] = y
        for item in x:
            y.append(deepcopy(item, memo))
    elif cls is tuple:
        y = tuple([deepcopy(item, memo) for item in x])
    elif cls is set:
        y = set([deepcopy(item, memo) for item in x])
    elif isinstance(x, dict):
        y = cls()
        memo[key] = y
        for k, value in x.items():
            y[deepcopy(k, memo)] = deepcopy(value, memo)
    else:
        y = object.__new__(cls)
        memo[key] = y
        state = deepcopy(x.__dict__, memo)
        y.__dict__.update(state)
    memo[key] = y
    return y


def _deepcopy_tensor(x, memo):
    # Tensor.__deepcopy__ and Parameter.__deepcopy__ of PyTorch 1.13
    if not x.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user "
                           "(graph leaves) support the deepcopy protocol at the moment")
    with torch.no_grad():
        data = x.detach().clone()
    if isinstance(x, torch.nn.Parameter):
        return type(x)(data, x.requires_grad)
    if x.requires_grad:
        data.requires_grad_()
    if x.grad is not None:
        data.grad = deepcopy(x.grad, memo)
    return data
