import torch
# A saved number that is inf or nan (norm's p) is shown as a float, never cast
# to an integer on the way.
x = torch.tensor([3., -4.], requires_grad=True)
n = x.norm(p=float('inf'))
print(n.grad_fn._saved_p)
n.backward()
print(x.grad)
m = x.norm(p=float('-inf'))
print(m.grad_fn._saved_p, m)
