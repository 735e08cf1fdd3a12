# sort, topk, masked_select and Tensor.unfold: each output element is one
# input element (the record keeps which), its edge 1; an element unfold
# takes twice gets both gradients. Each opens as a scalar graph.
import torch

x = torch.tensor([[0.5, -1.0, 2.0, 1.25], [1.5, 3.0, -0.25, 0.75]], requires_grad=True)
s, i = x.sort(1, descending=True)
t = x.topk(2, dim=0, largest=False)
m = x.masked_select(x > 0.7)
u = x.unfold(1, 2, 1)
print(s, i, t.values, t.indices, m, u, sep='\n')
loss = (s * torch.arange(8.0).view(2, 4)).sum() + t.values.exp().sum() + (m * m).sum() + u.sin().sum()
loss.backward()
print(x.grad)
