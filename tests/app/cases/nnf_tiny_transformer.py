import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, vocab, d, heads):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.emb(idx)
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q = q.unflatten(-1, (self.heads, d // self.heads))
        k = k.unflatten(-1, (self.heads, d // self.heads))
        v = v.unflatten(-1, (self.heads, d // self.heads))
        att = torch.einsum('bqhd,bkhd->bhqk', q, k) / (d // self.heads) ** 0.5
        mask = torch.ones(t, t).tril() == 0
        att = att.masked_fill(mask, float('-inf')).softmax(-1)
        y = torch.einsum('bhqk,bkhd->bqhd', self.drop(att), v).flatten(2)
        x = x + self.proj(y)
        x = x + self.drop(self.mlp(self.ln2(x)))
        return self.head(x)


model = Block(11, 8, 2)
idx = torch.tensor([[1, 5, 3, 0], [2, 2, 7, 9]])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    logits = model(idx)
    loss = F.cross_entropy(logits.reshape(-1, 11), idx.roll(-1, 1).reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print(logits.grad_fn, model.emb.weight.grad[0], model.ln1.weight.grad)
model.eval()
print(model(idx)[0, -1])
