# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of the
# reductions, statistics, indexing and shape ops.
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)


def check(name, f, *inputs, gg=True):
    # gg=False where PyTorch 1.13 has no double backward for the op.
    first = gradcheck(f, inputs, raise_exception=False)
    second = gradgradcheck(f, inputs, raise_exception=False) if gg else '-'
    out = f(*inputs)
    node = (out[0] if isinstance(out, tuple) else out).grad_fn
    print(name, first, second, node.name() if node is not None else None)


def r(*shape):
    return torch.randn(*shape, dtype=torch.double, requires_grad=True)


x = r(2, 3, 4)
a = r(3, 4)
check('sum', lambda x: x.sum(), x)
check('sum_dims', lambda x: x.sum((0, 2), keepdim=True), x)
check('mean_dim', lambda x: x.mean(-1), x)
check('prod', lambda x: x.prod(), r(2, 3))
check('prod_dim', lambda x: x.prod(1, keepdim=True), r(2, 3))
check('prod_dim_zero', lambda x: x.prod(0), torch.tensor([[0.0, 2.0], [3.0, 0.5]], dtype=torch.double,
                                                        requires_grad=True), gg=False)
check('prod_1d', lambda x: x.prod(0), r(3))
check('max', lambda x: x.max(), x)
check('max_dim', lambda x: x.max(1)[0], x)
check('min_dim', lambda x: x.min(2, keepdim=True)[0], x)
check('amax', lambda x: x.amax((0, 1)), x)
check('amin', lambda x: x.amin(-1), x)
check('var', lambda x: x.var(1), x)
check('var_all', lambda x: x.var(unbiased=False), x)
check('std', lambda x: x.std(), x)
check('std_dim', lambda x: x.std(2, keepdim=True), x)
check('logsumexp', lambda x: x.logsumexp(1), x)
check('norm', lambda x: x.norm(), x)
check('norm_p1', lambda x: x.norm(p=1, dim=1), x)
check('norm_p3', lambda x: x.norm(3, dim=(1, 2)), x)
check('cumsum', lambda x: x.cumsum(1), x)
check('trace', lambda a: a.trace(), r(3, 3))
check('diag', lambda a: torch.diag(a), r(3, 3))
check('diag_vec', lambda v: torch.diag(v, 1), r(3))
check('triu', lambda a: a.triu(), a)
check('tril', lambda a: a.tril(-1), a)
check('flip', lambda x: x.flip(0, 2), x)
check('repeat', lambda a: a.repeat(2, 1, 2), a)
check('expand', lambda a: a[:, :1].expand(3, 5), a)
check('gather', lambda x: x.gather(1, torch.tensor([[[0, 1, 2, 0]], [[2, 2, 1, 0]]])), x)
check('index_select', lambda x: x.index_select(2, torch.tensor([3, 0, 3])), x)
check('masked_fill', lambda a: a.masked_fill(a.detach() > 0, 0.5), a)
check('where', lambda a, b: torch.where(a.detach() > 0, a, b), a, r(3, 4))
check('index', lambda x: x[torch.tensor([1, 0, 1]), :, 1:3], x)


def setitem(a, v):
    b = a.clone()
    b[torch.tensor([0, 2])] = v
    b[1, 1:3] = v[:2] * 2
    return b


check('setitem', setitem, a, r(4))
check('split', lambda a: a.split(3, 1), a)
check('chunk', lambda a: a.chunk(2, 0), a)
check('unbind', lambda a: a.unbind(1), a)
check('stack', lambda a, b: torch.stack([a, b], 1), a, r(3, 4))
check('cat', lambda a, b: torch.cat([a, b], 0), a, r(1, 4))
check('t', lambda a: a.t(), a)
check('permute', lambda x: x.permute(2, 0, 1), x)
check('transpose', lambda x: x.transpose(0, 2), x)
check('reshape', lambda x: x.reshape(4, -1), x)
check('flatten', lambda x: x.flatten(1), x)
check('squeeze', lambda x: x.unsqueeze(1).squeeze(1), x)
check('slice', lambda x: x[:, ::2, 1:3], x)
check('clamp', lambda a: a.clamp(-0.5, 0.5), a)
check('clamp_min', lambda a: a.clamp(min=0.1), a)
check('maximum', lambda a, b: torch.maximum(a, b), a, r(3, 4))
check('pow', lambda a: a.abs().pow(2.5), a)
check('pow_tensor', lambda a, b: a.abs().pow(b), a, r(3, 4))
check('rpow', lambda a: torch.pow(2.0, a), a)
check('addcmul', lambda a, b, c: torch.addcmul(a, b, c, value=0.5), a, r(3, 4), r(3, 4))
check('addcdiv', lambda a, b, c: torch.addcdiv(a, b, c.abs() + 1, value=2), a, r(3, 4), r(3, 4))
check('matmul', lambda a, b: a @ b, x, r(4, 2))
check('bmm', lambda a, b: torch.bmm(a, b), x, r(2, 4, 2))
check('mv', lambda a, v: torch.mv(a, v), a, r(4))
check('dot', lambda u, v: torch.dot(u, v), r(4), r(4))
check('linear', lambda x, w, b: F.linear(x, w, b), x, r(5, 4), r(5))
check('one_hot_mul', lambda a: a * F.one_hot(torch.tensor([0, 3, 1]), 4), a)
