# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
torch.manual_seed(12)
class Encoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hid, batch_first=True)
    def forward(self, src):
        out, h = self.rnn(self.embedding(src))
        return h
class Decoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hid, batch_first=True)
        self.fc = nn.Linear(hid, vocab)
    def forward(self, tok, h):
        out, h = self.rnn(self.embedding(tok).unsqueeze(1), h)
        return self.fc(out.squeeze(1)), h
enc, dec = Encoder(6, 4, 5), Decoder(6, 4, 5)
src = torch.tensor([[1, 2, 3], [3, 2, 1]])
tgt = torch.tensor([[0, 4, 5], [0, 5, 4]])
params = list(enc.parameters()) + list(dec.parameters())
opt = torch.optim.Adam(params, lr=0.01)
crit = nn.CrossEntropyLoss()
for it in range(3):
    opt.zero_grad()
    h = enc(src)
    loss = 0
    tok = tgt[:, 0]
    for t in range(1, tgt.size(1)):
        logits, h = dec(tok, h)
        loss = loss + crit(logits, tgt[:, t])
        tok = tgt[:, t]
    loss.backward()
    nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    print(it, f"{loss.item():.4f}")
print(h.shape, logits.argmax(1))
