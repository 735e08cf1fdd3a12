import torch
x = torch.tensor([[3.0, -4.0, 1.0], [0.5, 2.0, -2.0]], requires_grad=True)
cases = [lambda: torch.linalg.vector_norm(x), lambda: torch.linalg.vector_norm(x, ord=1, dim=1),
         lambda: torch.linalg.vector_norm(x, ord=float('inf'), dim=(0, 1), keepdim=True),
         lambda: torch.linalg.vector_norm(x, 3, 1, True), lambda: torch.linalg.vector_norm(x, ord=0),
         lambda: torch.linalg.vector_norm(x, keepdim=True), lambda: torch.linalg.vector_norm(x, 2.5),
         lambda: torch.linalg.norm(x), lambda: torch.linalg.norm(x, dim=1),
         lambda: torch.linalg.norm(x, 'fro'), lambda: torch.linalg.norm(x[0], 1),
         lambda: torch.linalg.norm(x, ord=1, dim=0), lambda: torch.linalg.matrix_norm(x),
         lambda: torch.linalg.norm(x, 1), lambda: torch.linalg.norm(x, -1),
         lambda: torch.linalg.norm(x, float('inf')), lambda: torch.linalg.norm(x, float('-inf'), keepdim=True),
         lambda: torch.linalg.norm(x, keepdim=True), lambda: torch.linalg.matrix_norm(x, 1, dim=(1, 0))]
for i, f in enumerate(cases):
    y = f()
    g = y.grad_fn
    print(i, y, g.name(), getattr(g, '_saved_dim', ''), getattr(g, '_saved_ord', ''),
          getattr(g, '_saved_keepdim', ''))
    x.grad = None
    y.sum().backward()
    print(x.grad)
for bad in [lambda: torch.linalg.norm(torch.ones(2, 2, 2), 1),
            lambda: torch.linalg.vector_norm(torch.arange(3)),
            lambda: torch.linalg.matrix_norm(x, 3)]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)
# ord 0 counts nonzeros: no gradient reaches the input
z = torch.tensor([1.0, 0.0, 2.0], requires_grad=True)
print(torch.autograd.grad(torch.norm(z, p=0), z, allow_unused=True),
      torch.autograd.grad(torch.linalg.vector_norm(z, ord=0) + z.sum(), z))
print(torch.linalg.matmul(x, torch.ones(3)), torch.linalg.matmul(x.detach(), x.detach().t()))
torch.linalg.norm(x, dim=(0, 1, 1))
