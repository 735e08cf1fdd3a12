# Packing on the model's device with lengths kept on the CPU, as PyTorch
# asks: an embedding, a packed LSTM and a classifier on the last states.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(4)
emb = nn.Embedding(12, 4)
lstm = nn.LSTM(4, 5, batch_first=True, bidirectional=True)
head = nn.Linear(10, 3)
tokens = torch.tensor([[3, 7, 1, 0, 0], [2, 2, 9, 4, 11], [5, 6, 0, 0, 0]])
lengths = torch.tensor([3, 5, 2], device='cpu')
labels = torch.tensor([0, 2, 1])
packed = pack_padded_sequence(emb(tokens), lengths, batch_first=True, enforce_sorted=False)
print(packed.data.grad_fn._saved_result1)
out, (h, c) = lstm(packed)
features = torch.cat([h[-2], h[-1]], dim=1)
logits = head(features)
loss = nn.functional.cross_entropy(logits, labels)
loss.backward()
print(logits)
print(loss)
padded, lens = pad_packed_sequence(out, batch_first=True)
print(padded[:, :, :3], lens)
print(lstm.weight_ih_l0_reverse.grad[:4])
print(emb.weight.grad[2])
try:
    pack_padded_sequence(emb(tokens), lengths.float().view(1, 3), batch_first=True)
except RuntimeError as e:
    print("RuntimeError:", e)
