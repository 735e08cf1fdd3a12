# cuda: cpu-only, PyTorch's CUDA logsigmoid keeps an empty buffer
# F.logsigmoid keeps e^-|x| as its buffer, shown as _saved_buffer; its
# backward's node (create_graph) shows the same buffer.
import torch
import torch.nn.functional as F

x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
y = F.logsigmoid(x)
print(y.grad_fn)
print(sorted(a for a in dir(y.grad_fn) if "saved" in a))
print(y.grad_fn._saved_buffer)
print(y.grad_fn._saved_self)
m = torch.nn.LogSigmoid()
z = m(torch.tensor([[1.0, -1.0], [0.0, 10.0]], requires_grad=True))
print(z.grad_fn._saved_buffer)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g.grad_fn, sorted(a for a in dir(g.grad_fn) if a.startswith("_saved")))
print(g.grad_fn._saved_buffer)
print(g.grad_fn._saved_grad_output)
y.sum().backward()
print(x.grad)
try:
    print(y.grad_fn._saved_buffer)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:45])
d = F.logsigmoid(torch.tensor([1.0, -3.0], dtype=torch.float64, requires_grad=True))
print(d.grad_fn._saved_buffer)
