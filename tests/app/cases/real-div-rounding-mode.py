import torch
x = torch.tensor([-3.5, 2.0, 7.25], requires_grad=True)
y = torch.tensor([2.0, -3.0, 2.0], requires_grad=True)
for f in [lambda: x.div(2, rounding_mode='floor'), lambda: x.div(2, rounding_mode='trunc'),
          lambda: torch.div(x, y, rounding_mode='floor'), lambda: torch.div(x, y, rounding_mode='trunc'),
          lambda: x.div(torch.tensor(2.0), rounding_mode='floor')]:
    r = f()
    print(r, r.grad_fn.name(), r.grad_fn.next_functions[1][0] is None)
    x.grad = y.grad = None
    (r * 3).sum().backward()
    print(x.grad, y.grad)
r = torch.div(x, y, rounding_mode='floor')
print(r.grad_fn._saved_self, r.grad_fn._saved_other)
print(torch.div(torch.tensor([7, -7]), 2, rounding_mode='trunc'), torch.div(torch.tensor([7, -7]), 2, rounding_mode='floor'))
try:
    x.div(2, rounding_mode='round')
except RuntimeError as e:
    print(e)
