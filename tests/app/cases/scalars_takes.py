# sort, topk, masked_select (its input broadcast to the mask too) and
# Tensor.unfold: each output element is one input element (the record keeps
# which), its edge 1; an element unfold takes twice gets both gradients.
# median, kthvalue and mode over a dim send the gradient to the element
# their indices name; median() shares it among the elements equal to it
# (among the NaNs, where there are any).
# Each opens as a scalar graph.
import torch

x = torch.tensor([[0.5, -1.0, 2.0, 1.25], [1.5, 3.0, -0.25, 0.75]], requires_grad=True)
s, i = x.sort(1, descending=True)
t = x.topk(2, dim=0, largest=False)
m = x.masked_select(x > 0.7)
u = x.unfold(1, 2, 1)
y = torch.tensor([1.0, 2.0], requires_grad=True)
mb = y.masked_select(torch.tensor([[True, True], [False, True]]))
w = torch.tensor([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], requires_grad=True)
med, med_w = x.median(), w.median()
nan = torch.tensor([1.0, float('nan'), 3.0, float('nan')], requires_grad=True)
med_nan = nan.median()
md = x.median(1).values
kv = x.kthvalue(2, 0)
mo = w.mode(1)
print(s, i, t.values, t.indices, m, u, mb, med, med_w, med_nan, md, kv, mo, sep='\n')
loss = (s * torch.arange(8.0).view(2, 4)).sum() + t.values.exp().sum() + (m * m).sum() + u.sin().sum()
loss = loss + (mb * torch.arange(3.0)).sum() + med * 2 + med_w * 3 + md.sum() + (kv.values * kv.values).sum()
loss = loss + (mo.values * torch.tensor([2.0, -1.0])).sum()
med_nan.backward()
loss.backward()
print(x.grad, y.grad, w.grad, nan.grad, sep='\n')
