# torch.nn.utils.rnn: pad_sequence, as PyTorch 1.13's at::pad_sequence fills
# it (a tensor of padding_value, each sequence copied into its slice, so
# the result's grad_fn is CopySlices), and packed sequences written as
# PyTorch 1.13 writes them: PackedSequence (a named tuple of data,
# batch_sizes, sorted_indices, unsorted_indices), pack_padded_sequence on
# the native torch._pack_padded_sequence (PackPaddedSequenceBackward0),
# pad_packed_sequence as at::_pad_packed_sequence fills its output (slices
# copied into a tensor of padding_value), pack_sequence, unpad_sequence and
# unpack_sequence. The RNN modules take a PackedSequence
# (torch/nn/modules/rnn.py).
from collections import namedtuple
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


PackedSequence_ = namedtuple('PackedSequence_',
                             ['data', 'batch_sizes', 'sorted_indices', 'unsorted_indices'])


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


def invert_permutation(permutation):
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != 'cpu':
            raise ValueError(
                "batch_sizes should always be on CPU. "
                "Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence "
                "and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError()
    return data[0], data[1], sorted_indices, unsorted_indices


class PackedSequence(PackedSequence_):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return PackedSequence_.__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k != 'device' and k != 'dtype'}
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device, **kwargs))
        unsorted_indices = bind(self.unsorted_indices, lambda t: t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        return self.to(*args, device='cuda', **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device='cpu', **kwargs)

    def double(self):
        return self.to(dtype=torch.double)

    def float(self):
        return self.to(dtype=torch.float)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lengths = torch.as_tensor(lengths, dtype=torch.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = torch._pack_padded_sequence(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    # at::_pad_packed_sequence: each run of steps with one batch size is
    # one slice of data, copied into the output's block for those steps.
    sizes = batch_sizes.tolist()
    max_batch_size = sizes[0]
    max_real_seq_length = len(sizes)
    trailing = tuple(data.size()[1:])
    output = torch.full((total_length, max_batch_size) + trailing, padding_value,
                        dtype=data.dtype, device=data.device)
    lengths = [0] * max_batch_size
    at = max_batch_size - 1
    data_offset = 0
    prev_batch_size = max_batch_size
    prev_i = 0
    for i in range(max_real_seq_length + 1):
        batch_size = sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            l = prev_batch_size * (i - prev_i)
            tmp = data[data_offset:data_offset + l]
            output[prev_i:i, :prev_batch_size].copy_(tmp.view((i - prev_i, prev_batch_size) + trailing))
            data_offset += l
            prev_i = i
        for j in range(prev_batch_size - batch_size):
            lengths[at] = i
            at -= 1
        prev_batch_size = batch_size
    if batch_first:
        output = output.transpose(0, 1)
    return output, torch.tensor(lengths)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length "
                             "of the longest sequence in input, but got "
                             "total_length={} and max sequence length being {}"
                             .format(total_length, max_seq_length))
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pack_sequence(sequences, enforce_sorted=True):
    lengths = torch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = torch.arange(max_length)
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def unpack_sequence(packed_sequences):
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)


def __getattr__(name):
    torch._C._missing_attribute('torch.nn.utils.rnn', name)
