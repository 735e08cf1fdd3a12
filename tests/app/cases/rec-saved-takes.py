# The tensors PyTorch's gather, index_select, reflection/replication pad and
# embedding nodes keep (_saved_index, _saved_self, _saved_indices,
# _saved_weight ...), and the in-place change of one failing the backward.
import torch
import torch.nn.functional as F
x = torch.arange(6., requires_grad=True).reshape(2,3)
i = torch.tensor([[0,2],[1,0]])
names = {
  "gather": ["_saved_dim", "_saved_index", "_saved_self", "_saved_sparse_grad"],
  "index_select": ["_saved_dim", "_saved_index", "_saved_self_sizes"],
  "pad": ["_saved_padding", "_saved_self"],
  "embedding": ["_saved_indices", "_saved_padding_idx", "_saved_scale_grad_by_freq", "_saved_sparse", "_saved_weight"],
  "constant": ["_saved_pad"],
}
for name, kind, y in [
  ("gather", "gather", torch.gather(x, 1, i)),
  ("index_select", "index_select", torch.index_select(x, 1, torch.tensor([2,0]))),
  ("reflect1d", "pad", F.pad(x.unsqueeze(0), (1,1), mode='reflect')),
  ("replicate1d", "pad", F.pad(x.unsqueeze(0), (1,2), mode='replicate')),
  ("reflect2d", "pad", F.pad(x.reshape(1,1,2,3), (1,1,1,0), mode='reflect')),
  ("replicate3d", "pad", F.pad(x.reshape(1,1,1,2,3), (1,1,1,1,0,1), mode='replicate')),
  ("embedding", "embedding", F.embedding(torch.tensor([1,0,1]), x, padding_idx=-1, scale_grad_by_freq=True)),
  ("constant pad", "constant", F.pad(x, (1,1))),
]:
  g = y.grad_fn
  print(name, g.name())
  for a in names[kind]:
    v = getattr(g, a)
    print("   ", a, v if not isinstance(v, torch.Tensor) else (v.dtype, tuple(v.shape), v.tolist()))
def attempt(name, f):
    try:
        f()
        print(name, "ok")
    except RuntimeError as e:
        print(name, str(e)[:200])
def gather_self():
    x = torch.arange(6.).reshape(2,3).requires_grad_()
    h = x * 1
    y = torch.gather(h, 1, torch.tensor([[0],[2]]))
    h.add_(1)
    y.sum().backward()
def gather_index():
    x = torch.arange(6.).reshape(2,3).requires_grad_()
    i = torch.tensor([[0],[2]])
    y = torch.gather(x, 1, i)
    i.add_(0)
    y.sum().backward()
def isel_index():
    x = torch.arange(6.).reshape(2,3).requires_grad_()
    i = torch.tensor([0, 2])
    y = torch.index_select(x, 1, i)
    i.zero_()
    y.sum().backward()
def isel_self():
    x = torch.arange(6.).reshape(2,3).requires_grad_()
    h = x * 1
    y = torch.index_select(h, 1, torch.tensor([0, 2]))
    h.add_(1)
    y.sum().backward()
def pad_self():
    x = torch.arange(6.).reshape(1,2,3).requires_grad_()
    h = x * 1
    y = F.pad(h, (1,1), mode='reflect')
    h.add_(1)
    y.sum().backward()
def rpad_self():
    x = torch.arange(6.).reshape(1,2,3).requires_grad_()
    h = x * 1
    y = F.pad(h, (1,1), mode='replicate')
    h.add_(1)
    y.sum().backward()
def emb_weight():
    w = torch.arange(6.).reshape(3,2).requires_grad_()
    h = w * 1
    y = F.embedding(torch.tensor([0, 2]), h)
    h.add_(1)
    y.sum().backward()
def emb_idx():
    w = torch.arange(6.).reshape(3,2).requires_grad_()
    i = torch.tensor([0, 2])
    y = F.embedding(i, w)
    i.add_(0)
    y.sum().backward()
for f in [gather_self, gather_index, isel_index, isel_self, pad_self, rpad_self, emb_weight, emb_idx]:
    attempt(f.__name__, f)
