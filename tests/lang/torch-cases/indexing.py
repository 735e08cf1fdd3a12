# basic and advanced indexing (grad_fn names), index assignment with numbers, tensors
# and masks, backward through an assignment.
import torch
x = torch.tensor([[1., 5., 2.], [3., 2., 0.]], requires_grad=True)
print(x[0], x[0, 1], x[:, 1], x[-1], x[0][2])
print(x[0].grad_fn, x[:, 1:].grad_fn, x[..., 0].grad_fn, x[None].shape)
print(x[:, ::2], x[1:, :2], x[..., 1], x[:, None, 1].shape)
print(x[[0, 1]].grad_fn, x[[1, 0]], x[torch.tensor([True, False])])
print(x[x > 1], x[torch.tensor([1, 1])].shape, x[torch.tensor(1)])
y = torch.zeros(3, 3)
y[0] = 1
y[1, 2] = 5
y[:, 0] = torch.tensor([7., 8., 9.])
y[y > 6] = -1
print(y)
z = x * 1
z[0, 0] = 10
print(z, z.grad_fn)
z.sum().backward()
print(x.grad)
