# Transformer, its encoder and decoder stacks and their layers, on their
# general path in PyTorch 1.13 (post-norm by default, norm_first for
# pre-norm), built from
# MultiheadAttention, Linear, Dropout and LayerNorm created in PyTorch's
# order, so a seeded script gets PyTorch's weights.
import copy
import torch
from torch.nn import functional as F
from torch.nn.modules.module import Module
from torch.nn.modules.attention import MultiheadAttention
from torch.nn.modules.container import ModuleList
from torch.nn.modules.dropout import Dropout
from torch.nn.modules.linear import Linear
from torch.nn.modules.normalization import LayerNorm
from torch.nn.init import xavier_uniform_


def _activation(name):
    if name == 'relu':
        return F.relu
    if name == 'gelu':
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not {}".format(name))


def _feed_forward_parts(layer, d_model, dim_feedforward, dropout, device, dtype):
    # linear1, dropout and linear2, made in PyTorch's order.
    layer.linear1 = Linear(d_model, dim_feedforward, device=device, dtype=dtype)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, device=device, dtype=dtype)


def _norms_and_dropouts(layer, count, d_model, eps, dropout, norm_first, activation, device,
                        dtype):
    # norm1..normN, then dropout1..dropoutN, then the activation: a layer's
    # tail of __init__ in PyTorch's order.
    layer.norm_first = norm_first
    for i in range(1, count + 1):
        setattr(layer, 'norm{}'.format(i), LayerNorm(d_model, eps=eps, device=device, dtype=dtype))
    for i in range(1, count + 1):
        setattr(layer, 'dropout{}'.format(i), Dropout(dropout))
    if isinstance(activation, str):
        activation = _activation(activation)
    layer.activation = activation


def _self_attention(layer, x, attn_mask, key_padding_mask):
    x = layer.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                        need_weights=False)[0]
    return layer.dropout1(x)


def _feed_forward(layer, x, dropout_after):
    return dropout_after(layer.linear2(layer.dropout(layer.activation(layer.linear1(x)))))


class TransformerEncoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, device=device, dtype=dtype)
        _feed_forward_parts(self, d_model, dim_feedforward, dropout, device, dtype)
        _norms_and_dropouts(self, 2, d_model, layer_norm_eps, dropout, norm_first, activation,
                            device, dtype)

    def forward(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        return _self_attention(self, x, attn_mask, key_padding_mask)

    def _ff_block(self, x):
        return _feed_forward(self, x, self.dropout2)


class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None):
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, device=device, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, device=device,
                                                 dtype=dtype)
        _feed_forward_parts(self, d_model, dim_feedforward, dropout, device, dtype)
        _norms_and_dropouts(self, 3, d_model, layer_norm_eps, dropout, norm_first, activation,
                            device, dtype)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        return _self_attention(self, x, attn_mask, key_padding_mask)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return _feed_forward(self, x, self.dropout3)


class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 device=None, dtype=None):
        super().__init__()

        def stack(custom, layer_class, stack_class, num_layers):
            # The custom stack, else num_layers copies of a layer and a final norm.
            if custom is not None:
                return custom
            layer = layer_class(d_model, nhead, dim_feedforward, dropout, activation,
                                layer_norm_eps, batch_first, norm_first, device=device,
                                dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype)
            return stack_class(layer, num_layers, norm)

        self.encoder = stack(custom_encoder, TransformerEncoderLayer, TransformerEncoder,
                             num_encoder_layers)
        self.decoder = stack(custom_decoder, TransformerDecoderLayer, TransformerDecoder,
                             num_decoder_layers)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz, device='cpu'):
        return torch.triu(torch.full((sz, sz), float('-inf'), device=device), diagonal=1)

    def _reset_parameters(self):
        # Every matrix again, after the layers made their own: PyTorch's order.
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
