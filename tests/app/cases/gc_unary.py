# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of every
# unary row (inputs inside each function's domain, away from its kinks) and
# the activations without parameters. PyTorch 1.13 has no double backward of
# hardsigmoid.
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)


def check(name, f, *inputs, gg=True):
    # gg=False where PyTorch 1.13 has no double backward for the op.
    first = gradcheck(f, inputs, raise_exception=False)
    second = gradgradcheck(f, inputs, raise_exception=False) if gg else '-'
    node = f(*inputs).grad_fn
    print(name, first, second, node.name() if node is not None else None)


def r(*shape):
    return torch.randn(*shape, dtype=torch.double, requires_grad=True)


x = r(2, 3)
pos = (torch.rand(2, 3, dtype=torch.double) + 0.5).requires_grad_()
unit = (torch.rand(2, 3, dtype=torch.double) * 1.6 - 0.8).requires_grad_()
big = (torch.rand(2, 3, dtype=torch.double) + 1.5).requires_grad_()
rows = [
    ('neg', x), ('exp', x), ('log', pos), ('sin', x), ('cos', x), ('tanh', x),
    ('sigmoid', x), ('relu', x), ('sqrt', pos), ('rsqrt', pos), ('abs', x),
    ('sign', x), ('reciprocal', pos), ('log1p', pos), ('expm1', x), ('floor', x),
    ('ceil', x), ('round', x), ('tan', unit), ('atan', x), ('asin', unit),
    ('acos', unit), ('sinh', x), ('cosh', x), ('asinh', x), ('acosh', big),
    ('atanh', unit), ('erf', x), ('erfc', x), ('exp2', x), ('log10', pos),
    ('log2', pos), ('trunc', x), ('frac', x), ('erfinv', unit), ('sgn', x),
    ('deg2rad', x), ('rad2deg', x), ('sinc', x), ('square', x), ('negative', x),
    ('arctan', x), ('arcsinh', x), ('fix', x),
]
for name, t in rows:
    check(name, getattr(torch, name), t)
check('sinc_at_0', torch.sinc, torch.tensor([0.0, 0.5], dtype=torch.double, requires_grad=True))
for name in ['hardsigmoid', 'hardswish', 'mish', 'logsigmoid', 'silu', 'softsign', 'tanhshrink',
             'relu6', 'gelu', 'elu', 'softplus', 'leaky_relu', 'hardtanh']:
    check('F.' + name, getattr(F, name), x, gg=name != 'hardsigmoid')
check('F.gelu_tanh', lambda t: F.gelu(t, approximate='tanh'), x)
for name in ['selu', 'celu', 'hardshrink', 'softshrink']:
    check('F.' + name, getattr(F, name), x)
check('F.celu_alpha', lambda t: F.celu(t, 0.5), x)
check('F.softshrink_lambd', lambda t: F.softshrink(t, 0.3), x)
check('F.threshold', lambda t: F.threshold(t, 0.1, 2.0), x)
check('F.elu_alpha', lambda t: F.elu(t, 0.7), x)
check('F.softplus_beta', lambda t: F.softplus(t, 2, 1), x)
check('F.leaky_relu_slope', lambda t: F.leaky_relu(t, 0.2), x)
check('F.hardtanh_range', lambda t: F.hardtanh(t, -0.5, 0.5), x)
for name in ['Tanh', 'Sigmoid', 'ReLU', 'SiLU', 'Mish', 'Hardswish', 'Softsign', 'Tanhshrink',
             'LogSigmoid', 'GELU', 'ELU', 'Softplus', 'LeakyReLU', 'ReLU6', 'SELU', 'CELU',
             'Hardshrink', 'Softshrink']:
    check('nn.' + name, getattr(torch.nn, name)(), x)
