import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                       dim_feedforward=16, dropout=0.0)
for name, p in model.named_parameters():
    print(name, tuple(p.shape))
print(len(model.state_dict()))
src = torch.randn(5, 3, 8)
tgt = torch.randn(4, 3, 8)
tgt_mask = nn.Transformer.generate_square_subsequent_mask(4).to(tgt.device)
print(tgt_mask)
out = model(src, tgt, tgt_mask=tgt_mask)
print(out.shape, out.grad_fn)
print(out[0])
loss = (out * torch.arange(8.)).sum() / 10
loss.backward()
print(loss)
print(model.decoder.layers[1].multihead_attn.in_proj_weight.grad[:3])
print(model.encoder.layers[0].linear1.bias.grad)
print(model)
