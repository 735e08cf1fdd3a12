# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)

def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float('-inf'))
    attn = F.softmax(scores, dim=-1)
    return torch.matmul(attn, v), attn

class SelfAttention(nn.Module):
    def __init__(self, embed_dim):
        super().__init__()
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out = nn.Linear(embed_dim, embed_dim)

    def forward(self, x, mask=None):
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        y, attn = scaled_dot_product_attention(q, k, v, mask)
        return self.out(y), attn

B, T, E = 2, 4, 6
x = torch.randn(B, T, E, requires_grad=True)
mask = torch.tril(torch.ones(T, T)).unsqueeze(0)
layer = SelfAttention(E)
y, attn = layer(x, mask)
print(y.shape, attn.shape)
print(attn[0])
loss = y.pow(2).mean()
loss.backward()
print(x.grad.shape, x.grad.abs().sum())
print(layer.q_proj.weight.grad[0])
s = torch.bmm(x, x.transpose(1, 2))
print(s.grad_fn, s.shape)
print(torch.einsum('bte,bse->bts', x, x).shape)
