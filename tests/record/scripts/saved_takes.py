# gather, index_select, the reflection and replication pads and embedding
# keep what PyTorch's nodes keep: the index, self, the indices, the weight.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 4, requires_grad=True)
index = torch.tensor([[0, 3], [2, 1]])
picked = torch.tensor([3, 0, 1])
emb = nn.Embedding(5, 4)
tokens = torch.tensor([4, 0, 4])
g = torch.gather(x, 1, index)
s = torch.index_select(x, 1, picked)
r = F.pad(x.unsqueeze(0), (2, 1), mode="reflect")
p = F.pad(x.unsqueeze(0), (1, 2), mode="replicate")
e = emb(tokens)
loss = g.sum() + (s * s).sum() + r.mean() + p.pow(2).mean() + (e[:2] @ x.t()).sum()
loss.backward()
print(x.grad, emb.weight.grad)
