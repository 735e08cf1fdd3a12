# torch.linalg.inv / det / solve (and torch.inverse, torch.det) of small
# square matrices, batched: values, grad_fns, gradients of first and second
# order (PyTorch 1.13's formulas) and PyTorch's errors.
import torch

A = torch.tensor([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], requires_grad=True)
Ai = torch.linalg.inv(A)
print(Ai, Ai.grad_fn, Ai.grad_fn._saved_inverse)
d = torch.linalg.det(A)
print(d, d.grad_fn, d.grad_fn._saved_result)
b = torch.tensor([1., 2., 3.], requires_grad=True)
x = torch.linalg.solve(A, b)
print(x, x.grad_fn, x.grad_fn._saved_result)
B = torch.tensor([[1., 0.], [2., 1.], [0., -1.]], requires_grad=True)
X = torch.linalg.solve(A, B)
print(X)
(Ai.sum() + d * 0.1 + (x * torch.tensor([1., -2., 0.5])).sum() + X.sum()).backward()
print(A.grad, b.grad, B.grad)

batch = torch.stack([A.detach(), A.detach() * 2 + torch.eye(3)])
print(torch.linalg.det(batch), torch.inverse(batch), batch.det(), A.inverse().grad_fn)
print(torch.linalg.solve(batch, torch.ones(2, 3)), torch.linalg.solve(batch, torch.ones(3, 1)))

M = torch.tensor([[1.5, -0.5], [0.25, 2.]], requires_grad=True)
g, = torch.autograd.grad(torch.linalg.det(M), M, create_graph=True)
print(g)
print(torch.autograd.grad(g.sum(), M))
h, = torch.autograd.grad(M.inverse().pow(2).sum(), M, create_graph=True)
print(h.grad_fn, torch.autograd.grad(h.sum(), M))
s, = torch.autograd.grad(torch.linalg.solve(M, torch.tensor([1., -1.])).sum(), M, create_graph=True)
print(s.detach(), torch.autograd.grad(s.sum(), M))  # PyTorch ends s with a squeeze, we with a neg

# Least squares by the normal equations, as a tutorial writes it.
torch.manual_seed(0)
F = torch.randn(6, 3)
y = F @ torch.tensor([0.5, -1., 2.]) + 0.01 * torch.randn(6)
w = torch.linalg.solve(F.T @ F, F.T @ y)
print(w)

S = torch.tensor([[1., 2.], [2., 4.]])
print(torch.linalg.det(S))
for f in [lambda: torch.linalg.inv(S), lambda: torch.linalg.solve(S, torch.ones(2)),
          lambda: torch.linalg.inv(torch.ones(2, 3)), lambda: torch.linalg.det(torch.ones(2, 3)),
          lambda: torch.linalg.solve(torch.ones(2, 3), torch.ones(2)),
          lambda: torch.linalg.solve(A, torch.ones(2)),
          lambda: torch.linalg.inv(torch.eye(2, dtype=torch.int64)),
          lambda: torch.linalg.inv(torch.ones(3))]:
    try:
        print(f())
    except RuntimeError as e:
        print(e)
