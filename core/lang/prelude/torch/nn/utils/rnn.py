# torch.nn.utils.rnn: pad_sequence, as PyTorch 1.13's at::pad_sequence fills
# it (a tensor of padding_value, each sequence copied into its slice, so
# the result's grad_fn is CopySlices). Packed sequences (PackedSequence,
# pack_padded_sequence, ...) are not supported: the RNN modules take padded
# batches only.
import torch


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    if isinstance(sequences, torch.Tensor):
        sequences = sequences.unbind(0)
    max_len = max([s.size(0) for s in sequences])
    trailing = tuple(sequences[0].size()[1:])
    if batch_first:
        out_dims = (len(sequences), max_len) + trailing
    else:
        out_dims = (max_len, len(sequences)) + trailing
    first = sequences[0]
    out = torch.full(out_dims, padding_value, dtype=first.dtype, device=first.device)
    for i, t in enumerate(sequences):
        length = t.size(0)
        if batch_first:
            out[i, :length] = t
        else:
            out[:length, i] = t
    return out


def __getattr__(name):
    torch._C._missing_attribute('torch.nn.utils.rnn', name)
