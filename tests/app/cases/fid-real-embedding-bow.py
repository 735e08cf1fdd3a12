# cuda: cpu-only, a softmax sum prints 1. or 1.0000 by the order of its additions
# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(1)
vocab = {"hello": 0, "world": 1, "good": 2, "bad": 3, "movie": 4}
sentences = [["good", "movie"], ["bad", "movie"], ["hello", "world"]]
labels = torch.tensor([1, 0, 1])

class BoW(nn.Module):
    def __init__(self, vocab_size, dim, n_classes):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim)
        self.fc = nn.Linear(dim, n_classes)
    def forward(self, idx):
        e = self.emb(idx)
        return self.fc(e.mean(dim=1))

model = BoW(len(vocab), 4, 2)
idx = torch.tensor([[vocab[w] for w in s] for s in sentences], dtype=torch.long)
print(idx)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for i in range(3):
    logits = model(idx)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(i, loss.item())
print(model.emb.weight.grad)
print(F.log_softmax(model(idx), dim=-1).exp().sum(-1))
emb = nn.Embedding(10, 3, padding_idx=0)
print(emb(torch.tensor([0, 2])))
onehot = F.one_hot(torch.tensor([0, 2, 1]), num_classes=4)
print(onehot, onehot.dtype)
