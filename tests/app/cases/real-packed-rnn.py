# cuda: cpu-only, its lengths are made on the default device, which PyTorch refuses for packing
# Variable-length batches as the PyTorch tutorials pack them: sort or not,
# pack, run a GRU / LSTM / RNN, unpack, and backpropagate.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import (pack_padded_sequence, pad_packed_sequence, pack_sequence,
                                pad_sequence, unpack_sequence, PackedSequence)

torch.manual_seed(0)
emb = nn.Embedding(10, 3, padding_idx=0)
tokens = torch.tensor([[4, 2, 0, 0], [1, 5, 3, 9], [7, 0, 0, 0], [2, 6, 8, 0]])
lengths = torch.tensor([2, 4, 1, 3])
x = emb(tokens)
packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
print(packed.data.grad_fn.name(), packed.data.grad_fn.next_functions[0][0].name())
print(packed.data.grad_fn._saved_batch_first, packed.data.grad_fn._saved_input_sizes)
print(isinstance(packed, PackedSequence), isinstance(packed, tuple), len(packed))

gru = nn.GRU(3, 4, num_layers=2, batch_first=True, bidirectional=True)
out, h = gru(packed)
print(type(out).__name__, out.data.shape, out.data.grad_fn.name(), h.grad_fn.name())
print(h)
padded, out_lengths = pad_packed_sequence(out, batch_first=True)
print(padded.shape, out_lengths, padded.grad_fn.name())
print(padded[:, :, :2])
last = padded[torch.arange(4), out_lengths - 1]
loss = last.pow(2).sum() + h.sum()
loss.backward()
print(loss)
print(emb.weight.grad)
print(gru.weight_hh_l1_reverse.grad)
print(gru.bias_ih_l0.grad)

# Sorted lengths, time first, with a given state, an LSTM.
torch.manual_seed(1)
seqs = torch.randn(5, 3, 2, requires_grad=True)
lstm = nn.LSTM(2, 3)
h0 = torch.randn(1, 3, 3, requires_grad=True)
c0 = torch.randn(1, 3, 3)
p = pack_padded_sequence(seqs, [5, 3, 3])
o, (hn, cn) = lstm(p, (h0, c0))
print(o.data.grad_fn.name(), hn.grad_fn.name(), cn.grad_fn.name())
print(hn, cn)
o_pad, o_len = pad_packed_sequence(o, total_length=6, padding_value=-1.0)
print(o_pad[:, 1], o_len)
(o_pad.sum() + cn.sum()).backward()
print(seqs.grad[:, 2], h0.grad)

# pack_sequence of tensors, unsorted; an RNN with relu; unpacking.
torch.manual_seed(2)
a, b, c = torch.randn(2, 2), torch.randn(4, 2), torch.randn(3, 2)
ps = pack_sequence([a, b, c], enforce_sorted=False)
print(ps)
rnn = nn.RNN(2, 2, nonlinearity='relu')
ro, rh = rnn(ps)
print(ro.data, rh)
print([t.shape for t in unpack_sequence(ro)])
print(pad_sequence([a, b, c], batch_first=True).shape)

# The errors.
for f in [lambda: pack_padded_sequence(seqs, [3, 5, 3]),
          lambda: pack_padded_sequence(seqs, [5, 3]),
          lambda: pack_padded_sequence(seqs, [5, 3, 0]),
          lambda: pad_packed_sequence(p, total_length=4)]:
    try:
        f()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__ + ":", e)
