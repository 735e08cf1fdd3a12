# torch.distributions as a policy-gradient loop and a VAE use them.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal, Bernoulli, Uniform, kl_divergence

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
opt = torch.optim.Adam(policy.parameters(), lr=0.01)
for episode in range(3):
    states = torch.randn(5, 4)
    m = Categorical(logits=policy(states))
    actions = m.sample()
    rewards = (actions == 1).float() - 0.1 * actions.float()
    returns = (rewards - rewards.mean()) / (rewards.std() + torch.finfo(torch.float32).eps)
    loss = -(m.log_prob(actions) * returns).sum() - 0.01 * m.entropy().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(episode, actions, round(loss.item(), 4))
print(m)
print(m.probs[0], m.logits.grad_fn.name(), m.batch_shape, m.event_shape)
p = Categorical(torch.tensor([0.2, 0.3, 0.5]))
print(p, p.logits, p.entropy(), p.sample((2, 3)), p.log_prob(torch.tensor([0, 2])))
print(p.enumerate_support(), p.mode, p.mean)

# A VAE's reparameterised latent and its KL term.
mu = torch.tensor([[0.5, -1.0], [0.0, 0.2]], requires_grad=True)
logvar = torch.tensor([[0.1, -0.3], [0.0, 0.4]], requires_grad=True)
q = Normal(mu, torch.exp(0.5 * logvar))
z = q.rsample()
prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
kl = kl_divergence(q, prior).sum()
nll = -q.log_prob(z).sum()
(kl + nll).backward()
print(z, kl, nll)
print(mu.grad, logvar.grad)
print(q.entropy(), q.cdf(torch.zeros(2, 2)), q.stddev.grad_fn.name(), q.variance)
n = Normal(0.0, 1.0)
print(n, n.sample(), n.sample((3,)), n.log_prob(torch.tensor(0.5)), n.icdf(torch.tensor(0.975)))

# Bernoulli and Uniform.
b = Bernoulli(probs=torch.tensor([0.1, 0.5, 0.9]))
print(b, b.sample(), b.log_prob(torch.tensor([0.0, 1.0, 1.0])), b.entropy(), b.logits)
bl = Bernoulli(logits=torch.tensor([0.0, 2.0]))
print(bl.probs, bl.variance, kl_divergence(b, Bernoulli(0.3)))
u = Uniform(torch.tensor([0.0, 1.0]), torch.tensor([2.0, 5.0]))
print(u, u.rsample(), u.log_prob(torch.tensor([1.0, 3.0])), u.entropy(), u.mean, u.stddev)
print(kl_divergence(Uniform(0.0, 1.0), Uniform(-1.0, 2.0)), kl_divergence(u, Normal(0.0, 2.0)))

# The checks.
for f in [lambda: Normal(torch.zeros(2), torch.tensor([1.0, -1.0])),
          lambda: Categorical(probs=torch.tensor([0.5, -0.5])),
          lambda: Categorical(),
          lambda: p.log_prob(torch.tensor([3])),
          lambda: Uniform(1.0, 0.0),
          lambda: kl_divergence(n, p)]:
    try:
        f()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)
