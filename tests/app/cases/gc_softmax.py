# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of softmax,
# log_softmax and softmin along every dim, as functions and as modules.
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


x = r(2, 3, 4)
for d in [0, 1, 2, -1, -3]:
    check('softmax_' + str(d), lambda x: F.softmax(x, d), x)
    check('log_softmax_' + str(d), lambda x: F.log_softmax(x, d), x)
    check('softmin_' + str(d), lambda x: F.softmin(x, d), x)
check('softmax_0d', lambda x: torch.softmax(x, 0), r(()))
check('log_softmax_0d', lambda x: torch.log_softmax(x, -1), r(()))
check('log_softmax_1d', lambda x: torch.log_softmax(x, 0), r(5))
check('softmax_method', lambda x: x.softmax(1), r(3, 2))
check('log_softmax_method', lambda x: x.log_softmax(dim=0), r(3, 2))
check('nn_softmax', torch.nn.Softmax(dim=1), r(2, 3))
check('nn_log_softmax', torch.nn.LogSoftmax(dim=0), r(2, 3))
check('nn_softmin', torch.nn.Softmin(dim=-1), r(2, 3))
check('softmax_dtype', lambda x: F.softmax(x, 1, dtype=torch.double), r(2, 3))
