import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(5)
seqs = [torch.randint(1, 20, (n,)) for n in (5, 3, 4, 2)]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True, padding_value=0)
labels = torch.tensor([0, 1, 1, 0])
print(padded, lengths)

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6, padding_idx=0)
        self.lstm = nn.LSTM(6, 7, batch_first=True, bidirectional=True)
        self.out = nn.Linear(14, 2)

    def forward(self, x, lengths):
        out, (h, c) = self.lstm(self.emb(x))
        # the forward direction's output at each sequence's last real step
        idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, out.size(2))
        last = out.gather(1, idx).squeeze(1)
        mask = (x != 0).unsqueeze(-1).float()
        mean = (out * mask).sum(1) / lengths.unsqueeze(1)
        return self.out(last + mean), h

model = Classifier()
opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
for step in range(3):
    logits, h = model(padded, lengths)
    loss = nn.CrossEntropyLoss()(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), h.shape)
print(model.emb.weight.grad[0], model.emb.weight.grad[1:3].abs().sum() > 0)
