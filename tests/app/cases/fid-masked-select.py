# torch.masked_select / Tensor.masked_select: MaskedSelectBackward0, broadcasting, PyTorch's errors.
import torch
x = torch.arange(6.).reshape(2, 3).requires_grad_()
m = torch.masked_select(x, torch.tensor([True, False, True]))
print(m, m.grad_fn, m.grad_fn.next_functions)
print(m.grad_fn._saved_mask, m.grad_fn._saved_self)
print(sorted(a for a in dir(m.grad_fn) if 'saved' in a))
(m * torch.arange(4.)).sum().backward()
print(x.grad)
print(torch.arange(6.).reshape(2, 3).masked_select(torch.tensor([[True], [False]])))
y = torch.tensor([1.0, 2.0], requires_grad=True)
z = y.masked_select(torch.tensor([[True, True], [False, True]]))
print(z)
z.sum().backward()
print(y.grad)
print(torch.masked_select(torch.tensor([3, 1, 4]), torch.tensor([3, 1, 4]) > 2))
g, = torch.autograd.grad(torch.masked_select(x, x > 2).pow(2).sum(), x, create_graph=True)
print(g.detach())  # its grad_fn: PyTorch MaskedScatterBackward0, Chainrule IndexPutBackward0
for bad in [lambda: torch.masked_select(torch.ones(3), torch.tensor([1, 0, 1])),
            lambda: torch.masked_select(torch.ones(3), torch.tensor([True, False]))]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(torch.masked_select(torch.ones(2, 2), torch.zeros(2, 2, dtype=torch.bool)))
