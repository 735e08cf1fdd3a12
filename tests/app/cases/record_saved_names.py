# What grad_fn nodes keep for backward, under PyTorch's _saved_ names:
# nll_loss keeps self, target, weight and total_weight; addmm mat1/mat2.
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
t = torch.tensor([0, 2, 1])
w = torch.tensor([1., 2., 3., 4.])
for red in ["mean", "sum", "none"]:
    g = F.nll_loss(x.log_softmax(1), t, reduction=red).grad_fn
    print(g.name(), g._saved_total_weight, g._saved_self.shape, g._saved_target, g._saved_weight, g._saved_reduction)
g = F.nll_loss(x.log_softmax(1), t, weight=w).grad_fn
print(g.name(), g._saved_total_weight, g._saved_weight)
g = F.nll_loss(x.log_softmax(1), t, ignore_index=2).grad_fn
print(g._saved_total_weight)
g = F.nll_loss(x.double().log_softmax(1), t).grad_fn
print(g._saved_total_weight)
g = F.nll_loss(x[0].log_softmax(0), t[0], reduction="none").grad_fn
print(g._saved_total_weight)
x4 = torch.randn(2, 4, 3, 1, requires_grad=True)
t4 = torch.zeros(2, 3, 1, dtype=torch.long)
for red in ["mean", "none"]:
    g = F.nll_loss(x4, t4, reduction=red).grad_fn
    print(g.name(), g._saved_total_weight, g._saved_self.shape)
lin = torch.nn.Linear(4, 2)
g = lin(x).grad_fn
print(g.name(), g._saved_mat1.shape, g._saved_mat2.shape, g._saved_beta, g._saved_alpha)
g = F.binary_cross_entropy(torch.sigmoid(x), torch.rand(3, 4)).grad_fn
print(g.name(), g._saved_self.shape, g._saved_target.shape)
