# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of
# embedding, the normalizations and dropout. embedding's padding row gets no
# gradient (gradcheck is False in PyTorch too); PyTorch's double backward of
# embedding with scale_grad_by_freq ignores the scaling, so it is not checked.
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


idx = torch.tensor([[0, 2], [3, 0]])
wemb = r(4, 3)
check('embedding', lambda w: F.embedding(idx, w), wemb)
check('embedding_pad', lambda w: F.embedding(idx, w, padding_idx=0), wemb)
check('embedding_freq', lambda w: F.embedding(idx, w, scale_grad_by_freq=True), wemb, gg=False)
x = r(2, 3, 4)
g = r(4)
bb = r(4)
check('layer_norm', lambda x, g, b: F.layer_norm(x, (4,), g, b), x, g, bb)
check('layer_norm_2d', lambda x: F.layer_norm(x, (3, 4), eps=1e-3), x)
c3 = r(3)
c3b = r(3)
rm = torch.zeros(3, dtype=torch.double)
rv = torch.ones(3, dtype=torch.double)
check('batch_norm_train', lambda x, g, b: F.batch_norm(x, None, None, g, b, training=True), x, c3, c3b)
check('batch_norm_train_stats', lambda x, g, b: F.batch_norm(x, rm.clone(), rv.clone(), g, b,
                                                             training=True), x, c3, c3b)
check('batch_norm_eval', lambda x, g, b: F.batch_norm(x, rm + 0.5, rv * 2, g, b), x, c3, c3b)
check('batch_norm_2d', lambda x: F.batch_norm(x, None, None, training=True), r(2, 2, 2, 2))
check('group_norm', lambda x, g, b: F.group_norm(x, 2, g, b), r(2, 4, 3), g, bb)
check('group_norm_plain', lambda x: F.group_norm(x, 1), r(2, 2, 3))
check('instance_norm', lambda x, g, b: F.instance_norm(x, weight=g, bias=b), x, c3, c3b)
check('instance_norm_plain', lambda x: F.instance_norm(x), x)
check('dropout_p0', lambda x: F.dropout(x, 0.0), x)


def seeded_dropout(x):
    torch.manual_seed(5)
    return F.dropout(x, 0.5)


check('dropout_seeded', seeded_dropout, x)
check('dropout_eval', lambda x: F.dropout(x, 0.5, training=False) * 1, x)
