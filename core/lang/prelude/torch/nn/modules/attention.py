# MultiheadAttention, as PyTorch 1.13's F.multi_head_attention_forward
# computes it on its general path: one packed input projection, heads
# folded into the batch, scaled q·kᵀ (+ the mask, which PyTorch adds with
# baddbmm), softmax, dropout, ·v, the output projection; the weights
# averaged over the heads.
import math
import torch
from torch.nn.parameter import Parameter
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.modules.linear import Linear


class NonDynamicallyQuantizableLinear(Linear):
    pass


def _bool_mask_as_float(mask, dtype):
    return torch.zeros_like(mask, dtype=dtype).masked_fill(mask, float('-inf'))


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0., bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if add_bias_kv or add_zero_attn or (kdim is not None and kdim != embed_dim) \
                or (vdim is not None and vdim != embed_dim):
            raise NotImplementedError("MultiheadAttention(add_bias_kv, add_zero_attn, kdim, "
                                      "vdim) is not supported by Chainrule yet")
        self.embed_dim = embed_dim
        self.kdim = embed_dim
        self.vdim = embed_dim
        self._qkv_same_embed_dim = True
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, \
            "embed_dim must be divisible by num_heads"
        self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), device=device,
                                                    dtype=dtype))
        self.register_parameter('q_proj_weight', None)
        self.register_parameter('k_proj_weight', None)
        self.register_parameter('v_proj_weight', None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, device=device, dtype=dtype))
        else:
            self.register_parameter('in_proj_bias', None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.)
            init.constant_(self.out_proj.bias, 0.)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True):
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = [x.transpose(1, 0) for x in (query, key)]
                    value = key
            else:
                query, key, value = [x.transpose(1, 0) for x in (query, key, value)]
        if not is_batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
        heads, head_dim = self.num_heads, self.head_dim
        w, b = self.in_proj_weight, self.in_proj_bias
        if key is value and query is key:
            q, k, v = F.linear(query, w, b).chunk(3, dim=-1)
        elif key is value:
            # Encoder-decoder attention: one projection for key and value.
            w_q, w_kv = w.split([embed_dim, embed_dim * 2])
            b_q, b_kv = b.split([embed_dim, embed_dim * 2]) if b is not None else (None, None)
            q = F.linear(query, w_q, b_q)
            k, v = F.linear(key, w_kv, b_kv).chunk(2, dim=-1)
        else:
            w_q, w_k, w_v = w.chunk(3)
            b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
            q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
        if attn_mask is not None and attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError("The shape of the 2D attn_mask is {}, but should be {}."
                                   .format(attn_mask.shape, (tgt_len, src_len)))
            attn_mask = attn_mask.unsqueeze(0)
        q = q.contiguous().view(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.contiguous().view(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.contiguous().view(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len) \
                .expand(-1, heads, -1, -1).reshape(bsz * heads, 1, src_len)
            if attn_mask is None:
                attn_mask = key_padding_mask
            elif attn_mask.dtype == torch.bool:
                attn_mask = attn_mask.logical_or(key_padding_mask)
            else:
                attn_mask = attn_mask.masked_fill(key_padding_mask, float('-inf'))
        if attn_mask is not None and attn_mask.dtype == torch.bool:
            attn_mask = _bool_mask_as_float(attn_mask, q.dtype)
        dropout_p = self.dropout if self.training else 0.0
        q = q / math.sqrt(q.shape[-1])
        scores = torch.bmm(q, k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        attn = F.softmax(scores, dim=-1)
        if dropout_p > 0.0:
            attn = F.dropout(attn, p=dropout_p)
        out = torch.bmm(attn, v)
        out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        out = F.linear(out, self.out_proj.weight, self.out_proj.bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = None
        if need_weights:
            weights = attn.view(bsz, heads, tgt_len, src_len)
            if average_attn_weights:
                weights = weights.sum(dim=1) / heads
            if not is_batched:
                weights = weights.squeeze(0)
        if not is_batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(1, 0)
        return out, weights
