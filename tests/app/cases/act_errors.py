# cuda: cpu-only, the dtype errors name PyTorch's CPU kernels ("leaky_relu_cpu")
# The activations' errors: dtypes, parameters, PyTorch's messages.
import torch
import torch.nn.functional as F

i = torch.tensor([1, -2])
b = torch.tensor([True, False])
x = torch.tensor([-1.0, 0.5])
tries = [
    lambda: F.leaky_relu(i, 0.1),
    lambda: F.elu(i),
    lambda: F.selu(i),
    lambda: F.celu(i),
    lambda: F.softplus(i),
    lambda: F.gelu(i),
    lambda: F.hardshrink(i),
    lambda: F.softshrink(i),
    lambda: F.hardtanh(b),
    lambda: F.threshold(b, 0, 1),
    lambda: F.celu(x, 0.0),
    lambda: F.softshrink(x, -1.0),
    lambda: F.softshrink(x, -0.25),
    lambda: F.gelu(x, approximate='fast'),
    lambda: F.elu(b),
]
for f in tries:
    try:
        print(f())
    except RuntimeError as e:
        print('RuntimeError:', e)
print(F.hardtanh(i), F.threshold(i, 0, 5), F.relu6(torch.tensor([-3, 2, 9])))
print(F.hardshrink(x, -1.0))
print(F.hardtanh(x, 1.0, -1.0))
