# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of einsum,
# F.pad's modes, the distances, bilinear and the shape ops. PyTorch 1.13 has
# no double backward for cdist, so it is not checked.
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


a = r(2, 3)
b = r(3, 4)
x = r(2, 3, 4)
check('einsum_mm', lambda a, b: torch.einsum('ij,jk->ik', a, b), a, b)
check('einsum_trace', lambda a: torch.einsum('ii', a), r(3, 3))
check('einsum_outer', lambda u, v: torch.einsum('i,j->ij', u, v), r(3), r(2))
check('einsum_bmm', lambda a, b: torch.einsum('bij,bjk->bik', a, b), r(2, 2, 3), r(2, 3, 2))
check('einsum_diag', lambda a: torch.einsum('ii->i', a), r(3, 3))
check('einsum_sum', lambda a: torch.einsum('ij->', a), a)
check('einsum_transpose', lambda a: torch.einsum('ij->ji', a), a)
check('einsum_ellipsis', lambda a, b: torch.einsum('...j,jk->...k', a, b), r(2, 2, 3), b)
check('einsum_three', lambda a, b, c: torch.einsum('ij,jk,k->i', a, b, c), a, b, r(4))
check('pad_constant', lambda x: F.pad(x, (1, 2), value=0.5), x)
check('pad_constant_2d', lambda x: F.pad(x, (1, 0, 0, 1)), x)
check('pad_constant_crop', lambda x: F.pad(x, (-1, 1)), x)
check('pad_reflect', lambda x: F.pad(x, (2, 1), mode='reflect'), x)
check('pad_reflect_2d', lambda x: F.pad(x, (1, 1, 1, 0), mode='reflect'), r(1, 2, 3, 3))
check('pad_replicate', lambda x: F.pad(x, (2, 1), mode='replicate'), x)
check('pad_replicate_2d', lambda x: F.pad(x, (1, 1, 0, 2), mode='replicate'), r(1, 2, 3, 3))
check('pad_circular', lambda x: F.pad(x, (2, 1), mode='circular'), x)
check('pad_circular_2d', lambda x: F.pad(x, (1, 1, 1, 0), mode='circular'), r(1, 2, 3, 3))
check('normalize', lambda x: F.normalize(x), x)
check('normalize_p1', lambda x: F.normalize(x, p=1, dim=-1), x)
check('cosine_similarity', lambda a, b: F.cosine_similarity(a, b), a, r(2, 3))
check('cosine_similarity_d0', lambda a, b: F.cosine_similarity(a, b, dim=0), a, r(1, 3))
check('pairwise_distance', lambda a, b: F.pairwise_distance(a, b), a, r(2, 3))
check('pairwise_distance_p', lambda a, b: F.pairwise_distance(a, b, p=1.5, keepdim=True), a, r(2, 3))
check('cdist', lambda a, b: torch.cdist(a, b), a, r(4, 3), gg=False)
check('cdist_p1', lambda a, b: torch.cdist(a, b, p=1), a, r(4, 3), gg=False)
check('cdist_p3', lambda a, b: torch.cdist(a, b, p=3), r(2, 2, 3), r(2, 4, 3), gg=False)
check('bilinear', lambda a, b, w, bias: F.bilinear(a, b, w, bias), a, r(2, 2), r(4, 3, 2), r(4))
check('roll', lambda x: torch.roll(x, 1, 0), x)
check('roll_dims', lambda x: torch.roll(x, (1, -2), (1, 2)), x)
check('roll_flat', lambda x: torch.roll(x, 3), x)
ic = torch.tensor([2, 0])
check('index_copy', lambda t, s: t.index_copy(1, ic, s), r(2, 3, 4), r(2, 2, 4))
check('unflatten', lambda x: x.unflatten(2, (2, 2)), x)
check('addmm', lambda m, a, b: torch.addmm(m, a, b), r(2, 4), a, b)
check('addmm_scaled', lambda m, a, b: torch.addmm(m, a, b, beta=0.5, alpha=2), r(4), a, b)
check('addmm_method', lambda m, a, b: m.addmm(a, b, alpha=-1.5), r(2, 4), a, b)
