# floor division and 7 % x have no derivative in PyTorch 1.13: grad_fn=<NotImplemented>,
# and a backward through it names the op
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.tensor([2.0, 2.0, 2.0], requires_grad=True)
for f in [lambda: x // 2, lambda: 7 // x, lambda: x // y, lambda: torch.floor_divide(x, 2), lambda: x.floor_divide(y), lambda: 7 % x, lambda: x // torch.tensor(2.0)]:
    r = f()
    print(r, r.grad_fn and r.grad_fn.next_functions)
    try:
        r.sum().backward()
    except RuntimeError as e:
        print(e)
with torch.no_grad():
    print(x // 2)
print((x.detach() // 2).requires_grad, torch.tensor([5, 7]) // 2)
