import torch
from torch.nn.utils.rnn import pad_sequence
a = torch.tensor([1., 2., 3.], requires_grad=True)
b = torch.tensor([4., 5.], requires_grad=True)
p = pad_sequence([a, b])
print(p, p.grad_fn, p.grad_fn.next_functions)
q = pad_sequence([a, b], batch_first=True, padding_value=-1)
print(q)
(q * torch.arange(6.).view(2, 3)).sum().backward()
print(a.grad, b.grad)
m = [torch.ones(2, 4), torch.zeros(3, 4)]
print(pad_sequence(m, batch_first=True).shape, pad_sequence(m).shape)
print(torch.nn.utils.rnn.pad_sequence([torch.tensor([1, 2]), torch.tensor([3])]))
