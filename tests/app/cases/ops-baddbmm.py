import torch
torch.manual_seed(1)
A = torch.randn(2, 3, 4, requires_grad=True)
B = torch.randn(2, 4, 5, requires_grad=True)
S = torch.randn(5, requires_grad=True)
y = torch.baddbmm(S, A, B, beta=0.5, alpha=2)
print(y)
g = y.grad_fn
print(g.name(), [f[0].name() for f in g.next_functions])
print(g._saved_beta, g._saved_alpha, g._saved_batch1.shape, g._saved_batch2.shape)
y.square().mean().backward()
print(A.grad, B.grad, S.grad, sep="\n")
T = torch.randn(3, 5, requires_grad=True)
z = T.addbmm(A, B)
print(z)
g = z.grad_fn
print(g.name(), g._saved_beta, g._saved_alpha, g._saved_batch1_argsize_0, g._saved_batch1_argsize_1, g._saved_batch2_argsize_2)
z.sum().backward()
print(A.grad, B.grad, T.grad, sep="\n")
x = torch.randn(2, 3, 5).baddbmm(A.detach(), B.detach(), beta=0)
print(x.grad_fn, x.sum())
# double backward through the scaled product
A2 = A.detach().requires_grad_()
q = torch.baddbmm(torch.zeros(1), A2, B.detach(), alpha=3)
gA, = torch.autograd.grad(q.pow(2).sum(), A2, create_graph=True)
print(gA.grad_fn.name(), gA.grad_fn.next_functions[0][0].name())
try:
    torch.addbmm(T, A, torch.randn(3, 4, 5))
except RuntimeError as e:
    print("RuntimeError:", e)
torch.baddbmm(S, A, torch.randn(2, 5, 5))
