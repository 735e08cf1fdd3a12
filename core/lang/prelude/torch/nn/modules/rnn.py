# RNN, LSTM and GRU (and their cells), unrolled over time with differentiable ops, in the order
# PyTorch 1.13's CPU kernels (aten/src/ATen/native/RNN.cpp) compute them: the
# input projection of every step at once, then per step the hidden
# projection plus that step's slice, the gates, the new state; outputs and
# final states stacked (StackBackward0). A PackedSequence runs as RNN.cpp's
# PackedLayer and ReversedPackedLayer run it: each step takes the rows of
# the sequences still running, the states of those that ended are set
# aside (narrow) and joined at the end (CatBackward0).
import math
import torch
from torch.nn.parameter import Parameter
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.utils.rnn import PackedSequence

_GATES = {'LSTM': 4, 'GRU': 3, 'RNN_TANH': 1, 'RNN_RELU': 1}


def _cell_step(mode, x_w, h, c, w_hh, b_hh):
    # One step: x_w is this step's input projection (with b_ih). The gates
    # are split as PyTorch's cells split them (UnsafeSplitBackward0).
    if mode == 'LSTM':
        gates = F.linear(h, w_hh, b_hh) + x_w
        ingate, forgetgate, cellgate, outgate = gates.unsafe_chunk(4, 1)
        ingate = ingate.sigmoid()
        forgetgate = forgetgate.sigmoid()
        cellgate = cellgate.tanh()
        outgate = outgate.sigmoid()
        cy = forgetgate * c + ingate * cellgate
        hy = outgate * cy.tanh()
        return hy, cy
    if mode == 'GRU':
        i_r, i_z, i_n = x_w.unsafe_chunk(3, 1)
        h_r, h_z, h_n = F.linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
        reset_gate = (h_r + i_r).sigmoid()
        input_gate = (h_z + i_z).sigmoid()
        new_gate = (i_n + h_n * reset_gate).tanh()
        return (h - new_gate) * input_gate + new_gate, None
    pre = F.linear(h, w_hh, b_hh) + x_w
    return (pre.tanh() if mode == 'RNN_TANH' else pre.relu()), None


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0., bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] "
                             "representing the probability of an element being "
                             "zeroed")
        if dropout > 0 and num_layers == 1:
            torch._C._warn("dropout option adds dropout after all but last "
                           "recurrent layer, so non-zero dropout expects "
                           "num_layers greater than 1, but got dropout={} and "
                           "num_layers={}".format(dropout, num_layers))
        if proj_size != 0:
            raise NotImplementedError("LSTM(proj_size=...) is not supported by Chainrule yet")
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else hidden_size * num_directions
                suffix = '_reverse' if direction == 1 else ''
                names = ['weight_ih_l{}{}', 'weight_hh_l{}{}']
                shapes = [(gate_size, layer_input_size), (gate_size, hidden_size)]
                if bias:
                    names += ['bias_ih_l{}{}', 'bias_hh_l{}{}']
                    shapes += [(gate_size,), (gate_size,)]
                for name, shape in zip(names, shapes):
                    name = name.format(layer, suffix)
                    setattr(self, name, Parameter(torch.empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = '{}, {}'.format(self.input_size, self.hidden_size)
        if self.num_layers != 1:
            s += ', num_layers={}'.format(self.num_layers)
        if self.bias is not True:
            s += ', bias={}'.format(self.bias)
        if self.batch_first is not False:
            s += ', batch_first={}'.format(self.batch_first)
        if self.dropout != 0:
            s += ', dropout={}'.format(self.dropout)
        if self.bidirectional is not False:
            s += ', bidirectional={}'.format(self.bidirectional)
        return s

    def _weights(self, layer, direction):
        suffix = '_reverse' if direction == 1 else ''
        w_ih = getattr(self, 'weight_ih_l{}{}'.format(layer, suffix))
        w_hh = getattr(self, 'weight_hh_l{}{}'.format(layer, suffix))
        if self.bias:
            return (w_ih, w_hh, getattr(self, 'bias_ih_l{}{}'.format(layer, suffix)),
                    getattr(self, 'bias_hh_l{}{}'.format(layer, suffix)))
        return w_ih, w_hh, None, None

    def _cell(self, x_w, h, c, w_hh, b_hh):
        return _cell_step(self.mode, x_w, h, c, w_hh, b_hh)

    def _layer(self, x, h, c, layer, direction):
        w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
        x_w = F.linear(x, w_ih, b_ih)
        steps = x_w.unbind(0)
        order = range(len(steps) - 1, -1, -1) if direction == 1 else range(len(steps))
        outputs = [None] * len(steps)
        for t in order:
            h, c = self._cell(steps[t], h, c, w_hh, b_hh)
            outputs[t] = h
        return torch.stack(outputs, 0), h, c

    def _packed_layer(self, data, sizes, h, c, layer):
        # RNN.cpp's PackedLayer: sizes are the batch sizes, decreasing.
        w_ih, w_hh, b_ih, b_hh = self._weights(layer, 0)
        x_w = F.linear(data, w_ih, b_ih)
        outputs, ended_h, ended_c = [], [], []
        offset = 0
        last = sizes[0]
        for batch_size in sizes:
            step = x_w.narrow(0, offset, batch_size)
            offset += batch_size
            dec = last - batch_size
            if dec > 0:
                ended_h.append(h.narrow(0, last - dec, dec))
                h = h.narrow(0, 0, last - dec)
                if c is not None:
                    ended_c.append(c.narrow(0, last - dec, dec))
                    c = c.narrow(0, 0, last - dec)
            last = batch_size
            h, c = self._cell(step, h, c, w_hh, b_hh)
            outputs.append(h)
        ended_h.append(h)
        ended_h.reverse()
        if c is not None:
            ended_c.append(c)
            ended_c.reverse()
        return (torch.cat(outputs, 0), torch.cat(ended_h, 0),
                torch.cat(ended_c, 0) if c is not None else None)

    def _reversed_packed_layer(self, data, sizes, h0, c0, layer):
        # RNN.cpp's ReversedPackedLayer: from the last step back, the states
        # of sequences that start running are joined in (CatBackward0).
        w_ih, w_hh, b_ih, b_hh = self._weights(layer, 1)
        x_w = F.linear(data, w_ih, b_ih)
        offset = data.size(0)
        last = sizes[-1]
        h = h0.narrow(0, 0, last)
        c = c0.narrow(0, 0, last) if c0 is not None else None
        outputs = []
        for i in range(len(sizes) - 1, -1, -1):
            batch_size = sizes[i]
            inc = batch_size - last
            if inc > 0:
                h = torch.cat([h, h0.narrow(0, last, inc)], 0)
                if c is not None:
                    c = torch.cat([c, c0.narrow(0, last, inc)], 0)
            step = x_w.narrow(0, offset - batch_size, batch_size)
            offset -= batch_size
            last = batch_size
            h, c = self._cell(step, h, c, w_hh, b_hh)
            outputs.append(h)
        outputs.reverse()
        return torch.cat(outputs, 0), h, c

    def _forward_packed(self, packed, hx):
        is_lstm = self.mode == 'LSTM'
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = batch_sizes.tolist()
        num_directions = 2 if self.bidirectional else 1
        if hx is None:
            zeros = torch.zeros(self.num_layers * num_directions, sizes[0], self.hidden_size,
                                dtype=data.dtype, device=data.device)
            h0, c0 = zeros, zeros
        elif is_lstm:
            h0 = _apply_permutation(hx[0], sorted_indices)
            c0 = _apply_permutation(hx[1], sorted_indices)
        else:
            h0, c0 = _apply_permutation(hx, sorted_indices), None
        x = data
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                run = self._reversed_packed_layer if direction == 1 else self._packed_layer
                out, h, c = run(x, sizes, h0[k], c0[k] if is_lstm else None, layer)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if num_directions == 1 else torch.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        output = PackedSequence(x, batch_sizes, sorted_indices, unsorted_indices)
        hidden = _apply_permutation(torch.stack(h_n, 0), unsorted_indices)
        if is_lstm:
            cell = _apply_permutation(torch.stack(c_n, 0), unsorted_indices)
            return output, (hidden, cell)
        return output, hidden

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        is_lstm = self.mode == 'LSTM'
        batched = input.dim() == 3
        if input.dim() not in (2, 3):
            raise ValueError("{}: Expected input to be 2-D or 3-D but received {}-D tensor"
                             .format(type(self).__name__, input.dim()))
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        num_directions = 2 if self.bidirectional else 1
        batch = input.size(1)
        if hx is None:
            zeros = torch.zeros(self.num_layers * num_directions, batch, self.hidden_size,
                                dtype=input.dtype, device=input.device)
            h0, c0 = zeros, zeros
        elif is_lstm:
            h0, c0 = hx
            if not batched:
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
        else:
            h0, c0 = (hx if batched else hx.unsqueeze(1)), None
        x = input
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                out, h, c = self._layer(x, h0[k], c0[k] if is_lstm else None, layer, direction)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if num_directions == 1 else torch.cat(outs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        output = x
        hidden = torch.stack(h_n, 0)
        cell = torch.stack(c_n, 0) if is_lstm else None
        if not batched:
            output = output.squeeze(1)
            hidden = hidden.squeeze(1)
            cell = cell.squeeze(1) if is_lstm else None
        elif self.batch_first:
            output = output.transpose(0, 1)
        if is_lstm:
            return output, (hidden, cell)
        return output, hidden


def _apply_permutation(tensor, permutation, dim=1):
    if permutation is None:
        return tensor
    return tensor.index_select(dim, permutation)


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop('nonlinearity', 'tanh')
        if nonlinearity == 'tanh':
            mode = 'RNN_TANH'
        elif nonlinearity == 'relu':
            mode = 'RNN_RELU'
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(nonlinearity))
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__('GRU', *args, **kwargs)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size),
                                               device=device, dtype=dtype))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size),
                                               device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, device=device,
                                                 dtype=dtype))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, device=device,
                                                 dtype=dtype))
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)
        self.reset_parameters()

    def extra_repr(self):
        s = '{}, {}'.format(self.input_size, self.hidden_size)
        if self.bias is not True:
            s += ', bias={}'.format(self.bias)
        if getattr(self, 'nonlinearity', 'tanh') != 'tanh':
            s += ', nonlinearity={}'.format(self.nonlinearity)
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, mode, input, h, c):
        # PyTorch's _VF cell functions: their checks, then one step.
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError("input has inconsistent input_size: got {} expected {}"
                               .format(input.size(1), self.weight_ih.size(1)))
        # PyTorch labels both of an LSTM's states hidden0.
        for state in (h, c) if c is not None else (h,):
            if input.size(0) != state.size(0):
                raise RuntimeError("Input batch size {} doesn't match hidden0 batch size {}"
                                   .format(input.size(0), state.size(0)))
            if state.size(1) != self.hidden_size:
                raise RuntimeError("hidden0 has inconsistent hidden_size: got {}, expected {}"
                                   .format(state.size(1), self.hidden_size))
        x_w = F.linear(input, self.weight_ih, self.bias_ih)
        return _cell_step(mode, x_w, h, c, self.weight_hh, self.bias_hh)

    # One step for every cell: a sample (1-D input, a state without its
    # batch dim) or a batch, as PyTorch's cells take them; an LSTM's state
    # is the pair (h, c).
    _state_is_pair = False

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise AssertionError("{}: Expected input to be 1-D or 2-D but received {}-D tensor"
                                 .format(type(self).__name__, input.dim()))
        batched = input.dim() == 2
        pair = self._state_is_pair
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                device=input.device)
            hx = (zeros, zeros) if pair else zeros
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if pair else hx.unsqueeze(0)
        hy, cy = self._step(self._mode(), input, hx[0] if pair else hx, hx[1] if pair else None)
        if pair:
            return (hy, cy) if batched else (hy.squeeze(0), cy.squeeze(0))
        return hy if batched else hy.squeeze(0)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def _mode(self):
        if self.nonlinearity == 'tanh':
            return 'RNN_TANH'
        if self.nonlinearity == 'relu':
            return 'RNN_RELU'
        raise RuntimeError("Unknown nonlinearity: {}".format(self.nonlinearity))


class LSTMCell(RNNCellBase):
    _state_is_pair = True

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def _mode(self):
        return 'LSTM'


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def _mode(self):
        return 'GRU'
