import torch
import torch.nn as nn
torch.manual_seed(1)
model = nn.Transformer(d_model=6, nhead=3, num_encoder_layers=1, num_decoder_layers=2,
                       dim_feedforward=10, dropout=0.0, batch_first=True, norm_first=True,
                       activation='gelu')
src = torch.randn(2, 5, 6)
tgt = torch.randn(2, 3, 6, requires_grad=True)
src_pad = torch.tensor([[False, False, False, True, True], [False] * 5])
tgt_pad = torch.tensor([[False, False, True], [False, False, False]])
mask = model.generate_square_subsequent_mask(3).to(src.device)
out = model(src, tgt, tgt_mask=mask, src_key_padding_mask=src_pad,
            tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
print(out)
(out * torch.linspace(-1, 1, 6)).sum().backward()
print(tgt.grad)
b = model.encoder.layers[0].self_attn.in_proj_bias.grad
print(b[:6], b[12:])
# a decoder on its own, unbatched, bool memory mask
torch.manual_seed(2)
layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0)
dec = nn.TransformerDecoder(layer, num_layers=2)
print(dec)
mem = torch.randn(3, 4)
t = torch.randn(2, 4)
mm = torch.tensor([[False, True, False], [False, False, True]])
y = dec(t, mem, memory_mask=mm)
print(y)
y2 = dec.layers[0](t, mem)
print(y2.grad_fn.name(), y2.grad_fn.next_functions)
print([n for n, _ in dec.named_parameters()][:4])
print(sum(p.numel() for p in model.parameters()))
model.eval()
with torch.no_grad():
    print(model(src, tgt)[0, 0])
try:
    model(src, torch.randn(3, 3, 6))
except RuntimeError as e:
    print(e)
try:
    model(src, torch.randn(2, 3, 5))
except RuntimeError as e:
    print(e)
try:
    nn.TransformerDecoderLayer(4, 2, activation='tanh')
except RuntimeError as e:
    print(e)
