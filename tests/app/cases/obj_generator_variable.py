# torch.Generator and torch.autograd.Variable are classes, as PyTorch's:
# isinstance(g, torch.Generator), and every tensor is a Variable.
import torch
from torch.autograd import Variable
g = torch.Generator()
print(type(g), isinstance(g, torch.Generator), type(g) is torch.Generator)
g.manual_seed(3)
print(torch.rand(2, generator=g))
print(torch.Generator, torch.Generator.__name__, torch.Generator.__module__)
t = torch.ones(2)
print(isinstance(t, Variable), isinstance(3, Variable), issubclass(torch.Tensor, Variable))
v = Variable(torch.ones(2), requires_grad=True)
print(v, type(v), isinstance(v, torch.Tensor), v.requires_grad)
print(Variable)
print(isinstance(torch.default_generator, torch.Generator))
def make(gen=None):
    if isinstance(gen, torch.Generator):
        return "gen"
    return "none"
print(make(g), make())
