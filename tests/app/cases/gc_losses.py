# cuda: cpu-only, one launch per perturbed element: 20-90 s a case under the CUDA mock
# gradcheck and gradgradcheck (float64, PyTorch 1.13's tolerances) of every
# loss, each reduction, with class weights, ignore_index, label smoothing,
# class-probability targets and pos_weight.
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


inp = r(3, 4)
tgt = torch.randn(3, 4, dtype=torch.double)
for red in ['mean', 'sum', 'none']:
    check('mse_' + red, lambda a: F.mse_loss(a, tgt, reduction=red), inp)
    check('mse_both_' + red, lambda a, b: F.mse_loss(a, b, reduction=red), inp, r(3, 4))
    check('l1_' + red, lambda a: F.l1_loss(a, tgt, reduction=red), inp)
    check('l1_both_' + red, lambda a, b: F.l1_loss(a, b, reduction=red), inp, r(3, 4))
    check('smooth_l1_' + red, lambda a, b: F.smooth_l1_loss(a, b, reduction=red, beta=0.5),
          inp, r(3, 4))
    check('huber_' + red, lambda a, b: F.huber_loss(a, b, reduction=red, delta=0.7), inp, r(3, 4))
check('mse_broadcast', lambda a, b: F.mse_loss(a, b.expand(3, 4)), inp, r(4))
check('smooth_l1_beta0', lambda a: F.smooth_l1_loss(a, tgt, beta=0.0), inp)
cls = torch.tensor([1, 0, 3])
cw = torch.tensor([0.2, 1.0, 0.5, 2.0], dtype=torch.double)
check('cross_entropy', lambda a: F.cross_entropy(a, cls), inp)
check('cross_entropy_w', lambda a: F.cross_entropy(a, cls, weight=cw), inp)
check('cross_entropy_ign', lambda a: F.cross_entropy(a, cls, ignore_index=0), inp)
check('cross_entropy_ls', lambda a: F.cross_entropy(a, cls, label_smoothing=0.2), inp)
check('cross_entropy_all', lambda a: F.cross_entropy(a, cls, weight=cw, ignore_index=3,
                                                     label_smoothing=0.1), inp)
check('cross_entropy_sum', lambda a: F.cross_entropy(a, cls, weight=cw, reduction='sum',
                                                     label_smoothing=0.1), inp)
check('cross_entropy_none', lambda a: F.cross_entropy(a, cls, weight=cw, reduction='none',
                                                      label_smoothing=0.1), inp)
check('cross_entropy_1d', lambda a: F.cross_entropy(a, torch.tensor(2)), r(4))
check('cross_entropy_2d', lambda a: F.cross_entropy(a, torch.tensor([[0, 2], [1, 1]]),
                                                    ignore_index=1), r(2, 3, 2))
check('nll', lambda a: F.nll_loss(a, cls), inp)
check('nll_w', lambda a: F.nll_loss(a, cls, weight=cw, ignore_index=1), inp)
check('nll_sum', lambda a: F.nll_loss(a, cls, reduction='sum'), inp)
check('nll_none', lambda a: F.nll_loss(a, cls, reduction='none', weight=cw), inp)
p = torch.rand(3, 4, dtype=torch.double) * 0.8 + 0.1
pin = (torch.rand(3, 4, dtype=torch.double) * 0.8 + 0.1).requires_grad_()
ew = torch.rand(3, 4, dtype=torch.double)
check('bce', lambda a: F.binary_cross_entropy(a, p), pin)
check('bce_w', lambda a: F.binary_cross_entropy(a, p, weight=ew, reduction='sum'), pin)
check('bce_none', lambda a: F.binary_cross_entropy(a, p, reduction='none'), pin)
check('bce_target', lambda a, t: F.binary_cross_entropy(a, t), pin, p.clone().requires_grad_())
check('bce_logits', lambda a: F.binary_cross_entropy_with_logits(a, p), inp)
pw = torch.tensor([0.5, 1.0, 2.0, 3.0], dtype=torch.double)
check('bce_logits_pw', lambda a: F.binary_cross_entropy_with_logits(a, p, pos_weight=pw), inp)
check('bce_logits_all', lambda a, t: F.binary_cross_entropy_with_logits(
    a, t, weight=ew, pos_weight=pw, reduction='none'), inp, p.clone().requires_grad_())
check('bce_logits_sum', lambda a: F.binary_cross_entropy_with_logits(a, p, weight=ew,
                                                                     reduction='sum'), inp)
lp = torch.log_softmax(torch.randn(3, 4, dtype=torch.double), 1).requires_grad_()
check('kl_div_batchmean', lambda a: F.kl_div(a, p, reduction='batchmean'), lp)
check('kl_div_log_target', lambda a, t: F.kl_div(a, t, reduction='sum', log_target=True), lp, r(3, 4))
check('kl_div_target', lambda a, t: F.kl_div(a, t, reduction='none'), lp, p.clone().requires_grad_())
check('nn.KLDivLoss', torch.nn.KLDivLoss(reduction='batchmean', log_target=True), lp, r(3, 4))
check('nn.HuberLoss', torch.nn.HuberLoss(delta=0.3), inp, r(3, 4))
probs = torch.softmax(torch.randn(3, 4, dtype=torch.double), 1)
check('cross_entropy_probs', lambda a: F.cross_entropy(a, probs), inp)
check('cross_entropy_probs_w', lambda a: F.cross_entropy(a, probs, weight=cw, reduction='sum'), inp)
check('cross_entropy_probs_ls', lambda a: F.cross_entropy(a, probs, weight=cw, label_smoothing=0.3), inp)
check('cross_entropy_probs_none', lambda a, t: F.cross_entropy(a, t, reduction='none'), inp,
      probs.clone().requires_grad_())
probs2 = torch.softmax(torch.randn(2, 3, 2, dtype=torch.double), 1)
check('cross_entropy_probs_2d', lambda a: F.cross_entropy(a, probs2), r(2, 3, 2))
check('cross_entropy_probs_1d', lambda a: F.cross_entropy(a, probs[0], weight=cw), r(4))
for kw in [dict(weight=torch.ones(3)), dict(ignore_index=1)]:
    try:
        F.cross_entropy(inp, probs, **kw)
    except RuntimeError as e:
        print(e)
