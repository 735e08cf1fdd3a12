import torch
x = torch.tensor([[1., 2, 3], [4, 5, 6]], requires_grad=True)
i = torch.tensor([[0, 0], [1, 0]])
g = torch.gather(x, 1, i)
print(g)
print(g.grad_fn.name(), len(g.grad_fn.next_functions))
s = x.index_select(0, torch.tensor([1, 1, 0]))
print(s)
print(s.grad_fn.name())
c = torch.index_select(x, 1, torch.tensor(2))
print(c)
(g.sum() + (s * s).sum() + c.sum() * 3).backward()
print(x.grad)
print(x.gather(0, torch.tensor([[1, 0, 1]])))
print(torch.gather(x, 0, torch.tensor([[0], [1], [0]])))
for f in [lambda: torch.gather(x, 2, i), lambda: torch.gather(x, 1, torch.tensor([[5]])),
          lambda: torch.gather(x, 1, torch.tensor([0])), lambda: torch.gather(x, 1, i.float()),
          lambda: torch.gather(x, 1, torch.tensor([[-1]])),
          lambda: torch.gather(x, 1, torch.tensor([[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]])),
          lambda: x.index_select(0, torch.tensor([3])), lambda: x.index_select(0, torch.tensor([[0]])),
          lambda: x.index_select(2, torch.tensor([0])), lambda: x.index_select(0, torch.tensor([0.])),
          lambda: x.index_select(1, torch.tensor([-1]))]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
y = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
z = torch.index_select(y * 2, 0, torch.tensor([2, 0, 2]))
z.backward(torch.tensor([1., 10., 100.]))
print(y.grad)
w = torch.gather(y, 0, torch.tensor([1, 1]))
gw, = torch.autograd.grad(w.pow(2).sum(), y, create_graph=True)
print(gw)
gw.sum().backward()
print(y.grad)
