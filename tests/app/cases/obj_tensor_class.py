# torch.Tensor is a class: isinstance by identity, attributes of a tensor
# object, and subclasses made with _make_subclass (as nn.Parameter is).
import torch


class Tensor:
    pass


t = torch.ones(2)
print(isinstance(t, Tensor), isinstance(t, torch.Tensor), isinstance(t, object))
print(type(t) is torch.Tensor, type(t), t.__class__ is torch.Tensor, type(t).__name__)
print(issubclass(torch.Tensor, object), isinstance(Tensor(), torch.Tensor))
print(isinstance(1, set), isinstance({1}, set), issubclass(Tensor, set))

x = torch.ones(2, requires_grad=True)
(x * 2).sum().backward()
print(x.grad is x.grad, x.data is x.data, x.grad is not None)

# Attributes belong to the tensor object: every reference sees them.
inp = torch.arange(3.0)
inp.g = torch.zeros(3)
alias = inp
alias.g += 1
print(inp.g, hasattr(inp, "g"), hasattr(inp, "h"), list(inp.__dict__))
del inp.g
print(hasattr(alias, "g"))
x.grad.tag = "grad of x"
print(x.grad.tag)
try:
    print(inp.missing)
except AttributeError as e:
    print("AttributeError:", e)


class MyParam(torch.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torch.empty(0)
        return torch.Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "MyParam containing:\n" + super().__repr__()

    def scale(self):
        return self.detach().sum().item() * 2


d = torch.tensor([1.0, 2.0])
p = MyParam(d)
print(p)
print(repr(p) == str(p), [p])
print(type(p).__name__, isinstance(p, torch.Tensor), isinstance(p, MyParam))
print(p.is_leaf, p.requires_grad, p.grad_fn, p.scale())
d[0] = 5.0          # shares d's storage
print(p.tolist(), p.shape, p.dtype)
w = MyParam(torch.ones(2, 2))
(w * 3).sum().backward()
print(w.grad, type(w.grad) is torch.Tensor)
e = MyParam()
print(e.shape, MyParam(torch.zeros(1), requires_grad=False).requires_grad)
print(torch.Tensor.__repr__(torch.ones(1)))


class Plain(torch.Tensor):
    def hi(self):
        return "hi " + str(list(self.shape))


m = Plain([1.0, 2.0, 3.0])
print(type(m).__name__, m.hi(), isinstance(m, Plain))
