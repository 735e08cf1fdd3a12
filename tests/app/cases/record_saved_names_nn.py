# The tensors layer_norm, the pools, clamp_min/max and masked_fill keep for
# backward, under their _saved_ names.
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 3, 4, 4, requires_grad=True)
g = F.layer_norm(x, (4,), torch.ones(4, requires_grad=True), torch.zeros(4, requires_grad=True)).grad_fn
print(g.name(), g._saved_result1.shape, g._saved_result2.shape, g._saved_result1.flatten()[:3], g._saved_result2.flatten()[:3])
g = F.layer_norm(x, (4, 4)).grad_fn
print(g.name(), g._saved_result1.shape, g._saved_result2.shape)
g = F.max_pool2d(x, 2).grad_fn
print(g.name(), g._saved_result1.shape, g._saved_result1.dtype, g._saved_result1.flatten()[:4], g._saved_self.shape)
g = F.avg_pool2d(x, 2).grad_fn
print(g.name(), g._saved_self.shape)
g = torch.clamp_min(x, 0).grad_fn
print(g.name(), g._saved_self.shape)
g = torch.clamp_max(x, 0).grad_fn
print(g.name(), g._saved_self.shape)
g = x.masked_fill(x > 0, 0.).grad_fn
print(g.name(), g._saved_mask.shape, g._saved_mask.dtype)
y = torch.randn(4, requires_grad=True)
g = y.masked_fill(torch.tensor([True, False, True, False]), 1.).grad_fn
print(g.name(), g._saved_mask)
