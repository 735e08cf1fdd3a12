import torch
import torch.nn as nn

text = "hello world, hello chainrule"
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(len(chars), data[:10])

class CharRNN(nn.Module):
    def __init__(self, vocab_size, hidden_size=16):
        super(CharRNN, self).__init__()
        self.embed = nn.Embedding(vocab_size, 8)
        self.rnn = nn.GRU(8, hidden_size, num_layers=1, batch_first=True)
        self.fc = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h=None):
        out, h = self.rnn(self.embed(x), h)
        return self.fc(out), h

torch.manual_seed(0)
model = CharRNN(len(chars))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
seq_len = 8
for step in range(30):
    i = step % (len(data) - seq_len - 1)
    x = data[i:i + seq_len].unsqueeze(0)
    t = data[i + 1:i + seq_len + 1].unsqueeze(0)
    logits, _ = model(x)
    loss = nn.functional.cross_entropy(logits.view(-1, len(chars)), t.view(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

# greedy sampling
model.eval()
with torch.no_grad():
    idx = torch.tensor([[stoi['h']]])
    h = None
    out = 'h'
    for _ in range(10):
        logits, h = model(idx, h)
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out += itos[nxt.item()]
        idx = nxt
    print(repr(out), h.shape)
    g = torch.Generator().manual_seed(1)
    probs = torch.softmax(logits[0, -1], dim=0)
    print(torch.multinomial(probs, 5, replacement=True, generator=g))
