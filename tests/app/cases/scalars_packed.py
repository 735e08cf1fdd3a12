# cuda: cpu-only, its lengths are made on the default device, which PyTorch refuses for packing
# pack_padded_sequence (PackPaddedSequenceBackward0), batch first or time
# first, sorted or not: each packed element is one element of the padded
# batch, and the padding gets no gradient. Each op opens as a scalar graph.
import torch
from torch.nn.utils.rnn import pack_padded_sequence

x = torch.tensor([[[0.5, 1.0], [1.0, -2.0], [2.0, 0.0]],
                  [[-1.0, 0.5], [3.0, 1.5], [0.0, 0.0]]], requires_grad=True)
p = pack_padded_sequence(x, [3, 2], batch_first=True)
t = torch.tensor([[1.0, 2.0], [3.0, 0.0], [-1.0, 0.0]], requires_grad=True)
q = pack_padded_sequence(t.unsqueeze(2), [1, 2], enforce_sorted=False)
print(p.data, p.batch_sizes, q.data, q.batch_sizes, q.sorted_indices, sep='\n')
loss = (p.data * p.data).sum() + (q.data.squeeze(1) * torch.arange(1.0, 4.0)).sum()
loss.backward()
print(x.grad, t.grad, sep='\n')
