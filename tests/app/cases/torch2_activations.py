# cuda: cpu-only, the dtype errors name PyTorch's CPU kernels ("leaky_relu_cpu")
import torch
import torch.nn.functional as F
x = torch.tensor([[-2.0, -0.5, 0.0], [0.5, 1.5, 30.0]], requires_grad=True)
for name, f in [("leaky_relu", lambda t: F.leaky_relu(t)), ("leaky_relu_02", lambda t: F.leaky_relu(t, 0.2)),
                ("elu", lambda t: F.elu(t)), ("elu_a", lambda t: F.elu(t, alpha=0.5)),
                ("softplus", lambda t: F.softplus(t)), ("softplus_b", lambda t: F.softplus(t, beta=2, threshold=5)),
                ("silu", lambda t: F.silu(t)), ("gelu", lambda t: F.gelu(t))]:
    y = f(x)
    print(name, y, y.grad_fn.next_functions)
    y.sum().backward()
    print(x.grad)
    x.grad = None
z = x * 1
r = F.relu(z, inplace=True)
print(r is z, z.grad_fn, z.grad_fn.next_functions)
g, = torch.autograd.grad(F.silu(x).sum(), x, create_graph=True)
print(g)
g2, = torch.autograd.grad(g.sum(), x)
print(g2)
F.leaky_relu(torch.tensor([1, 2]))
