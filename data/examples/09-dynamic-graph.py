# The graph is built while the code runs (a dynamic graph).
# Each operation adds a node; grad_fn.next_functions shows the edges back to
# the inputs (AccumulateGrad for a leaf that requires grad). Ordinary Python
# control flow decides which nodes exist.
import torch

a = torch.tensor([1.0, -2.0], requires_grad=True)   # no graph yet: a is a leaf
w1 = torch.tensor([3.0, 0.5], requires_grad=True)
print(a.grad_fn, w1.grad_fn)

b = w1 * a        # now a MulBackward0 node exists
print(b.grad_fn)
print(b.is_leaf, b.requires_grad)
for fn, index in b.grad_fn.next_functions:
    print(fn, index)

# A loop builds a deeper graph; the branch taken depends on the data.
y = b
for step in range(3):
    if y.sum() > 0:
        y = y - 3
    else:
        y = y * 2
print(y)
fn = y.grad_fn
while fn is not None:
    print(fn)
    # A leaf's AccumulateGrad has no next functions: the walk ends there.
    fn = fn.next_functions[0][0] if fn.next_functions else None

y.sum().backward()
print(a.grad, w1.grad)
