# A broadcast error inside a function called with a list of tensors: the
# operands are the function's own expression's, and torch.cat names each
# tensor of its list.
import torch
a = torch.ones(2, requires_grad=True)
b = torch.ones(3, requires_grad=True)
def combine(p, q):
    return p + q  # record: operands=a,b
joined = torch.cat([a, b])
try:
    torch.cat([a, b.unsqueeze(1)])  # record: operands=a,(b.unsqueeze(1))
except RuntimeError as e:
    print(e)
out = combine(a, b)
