# The matmul family: dot, mv, mm, batched matmul with broadcasting, the @
# operator, and the gradients of each with respect to both operands.
import torch
A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
B = torch.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.5]], requires_grad=True)
v = torch.tensor([1.0, -1.0], requires_grad=True)
print(torch.dot(v, v), torch.dot(v, v).grad_fn)
print(torch.mv(A, v), torch.mv(A, v).grad_fn)
print(torch.mm(A, B))
print((A @ B).grad_fn)
batch = torch.arange(12.0).reshape(2, 3, 2)
r = torch.bmm(batch, B.unsqueeze(0).expand(2, 2, 3))
print(r.shape, r.grad_fn)
print(torch.matmul(batch, B).shape)
(A @ B).sum().backward()
print(A.grad)
print(B.grad)
v.grad = None
torch.mv(A, v).sum().backward()
print(v.grad)
