# 2 * x is x.__rmul__(2): the tensor is the node's first input.
import torch
b = torch.ones(2, requires_grad=True)
s = b.sin()
for r in [2 * s, 2 + s, 2 - s, 2 / s, 2 ** s, s * 2, s + 2, torch.tensor(2.) * s, 3.5 * s + 1]:
    print(r.grad_fn.name(), [(n.name() if n else None, i) for n, i in r.grad_fn.next_functions])
