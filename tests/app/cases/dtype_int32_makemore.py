# makemore's bigram model: counts in an int32 matrix, then probabilities.
import torch
words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "ella"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
n = len(stoi)
N = torch.zeros((n, n), dtype=torch.int32)
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1
print(N.dtype, N.sum(), N[0])
print(N[0, 1].item(), N.max())
p = N[0].float()
p = p / p.sum()
print(p)
g = torch.Generator().manual_seed(2147483647)
ix = torch.multinomial(p, num_samples=5, replacement=True, generator=g)
print(ix, [itos[i.item()] for i in ix])
P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P.shape, f"{P[0].sum().item():.4f}", P[1, :4])
log_likelihood = 0.0
count = 0
for w in words[:3]:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        logprob = torch.log(P[stoi[ch1], stoi[ch2]])
        log_likelihood += logprob
        count += 1
print(f"{-log_likelihood / count:.4f}")
xs, ys = [], []
for ch1, ch2 in zip(".emma", "emma."):
    xs.append(stoi[ch1]); ys.append(stoi[ch2])
xs = torch.tensor(xs, dtype=torch.int32)
ys = torch.tensor(ys)
W = torch.randn((n, n), generator=g, requires_grad=True)
xenc = torch.nn.functional.one_hot(xs.long(), num_classes=n).float()
logits = xenc @ W
emb = torch.nn.functional.embedding(xs, W)
print(torch.allclose(logits, emb), xs.dtype, emb.shape)
loss = torch.nn.functional.cross_entropy(emb, ys)
loss.backward()
print(f"{loss.item():.4f}", W.grad.shape, W.grad[0, :3])
sel = W.index_select(0, xs)
print(torch.equal(sel, emb.detach()))
