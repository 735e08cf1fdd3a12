# dir(grad_fn) lists what PyTorch 1.13 lists, the node's _saved_ attributes too.
import torch
x = torch.tensor([[1., 5., 2.], [4., 0., 3.]], requires_grad=True)
y = (x * x).sum()
print(dir(y.grad_fn))
print(dir(y.grad_fn.next_functions[0][0]))
print(dir(y.grad_fn.next_functions[0][0].next_functions[0][0]))
z = (x.exp() * 2 + torch.nn.functional.leaky_relu(x, 0.1)).mean(1, keepdim=True)
f = z.grad_fn
while f is not None:
    print(type(f).__name__, [a for a in dir(f) if a.startswith('_saved') or a.startswith('_raw')])
    f = f.next_functions[0][0] if f.next_functions else None
for t in [x + 1, 1 + x, x - 1, 1 - x, x - x, torch.add(x, x, alpha=0.5), torch.sub(x, x, alpha=3)]:
    g = t.grad_fn
    print(type(g).__name__, g._saved_alpha, [a for a in dir(g) if a.startswith('_saved')])
