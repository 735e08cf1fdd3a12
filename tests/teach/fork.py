# Paths that fork and meet: a reaches e four ways (the README's and the
# screenshots' example for `chainrule paths` and the inspector).
import torch
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(-3.0, requires_grad=True)
c = a * b
d = c + a
e = d * c + a.sin()
e.backward()
