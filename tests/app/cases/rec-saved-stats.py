# What the nodes of sort, topk, max/min(dim) and the norms keep, in
# PyTorch's shapes: the indices returned (the same tensor), batch norm's
# statistics per channel and empty in eval, group norm's per sample and
# group, layer norm's bias; and an in-place change of one of them (the
# indices, a running buffer) failing the backward.
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(2, 3, 4, requires_grad=True)
for o in [x.max(1), x.sort(1), x.topk(2, dim=2), x.sort(2, descending=True), x.min(0, keepdim=True)]:
    g = o[0].grad_fn
    print(g.name(), g._saved_indices.shape, g._saved_dim, g._saved_self_sizes,
          g._saved_indices is o[1])

def attempt(name, f):
    try:
        f()
        print(name, "ok")
    except RuntimeError as e:
        print(name, e)

def sorted_changed():
    v, i = x.sort(1)
    i.add_(0)
    v.sum().backward()

def topk_changed():
    v, i = x.topk(2, 1)
    i.mul_(1)
    v.sum().backward()

attempt("sort", sorted_changed)
attempt("topk", topk_changed)

bn = nn.BatchNorm1d(3)
gn = nn.GroupNorm(3, 3)
ln = nn.LayerNorm(4)
for m in [bn, gn, ln]:
    g = m(x).grad_fn
    print(g.name(), g._saved_result1.shape, g._saved_result2.shape)
print(ln(x).grad_fn._saved_bias is ln.bias)
y = bn(x)
print(bn.running_mean._version, y.grad_fn._saved_running_mean._version)
bn.eval()
y = bn(x)
g = y.grad_fn
print(g._saved_result1, g._saved_result2, g._saved_training)
print(g._saved_running_var is bn.running_var)
(y * torch.arange(4.)).sum().backward(retain_graph=True)
print(x.grad[0])
with torch.no_grad():
    bn.running_var.mul_(2)
attempt("eval", lambda: y.sum().backward())
bn.train()
y = bn(x)
with torch.no_grad():
    bn.running_mean.add_(1)
attempt("train", lambda: y.sum().backward())
