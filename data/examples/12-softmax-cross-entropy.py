# Softmax and cross-entropy for classification.
# softmax turns scores into probabilities; F.cross_entropy is log_softmax
# followed by the negative log-likelihood of the right class. Its gradient with
# respect to the scores is (softmax - one_hot) / batch size.
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
target = torch.tensor([0, 1])

probs = F.softmax(logits, dim=1)
print(probs)
print(probs.sum(dim=1))

loss = F.cross_entropy(logits, target)
print(loss)
loss.backward()
print(logits.grad)

# The same number by hand: pick the log-probability of each right class.
logp = F.log_softmax(logits, dim=1)
manual = -logp[torch.arange(2), target].mean()
print(manual.item(), loss.item())
