# log_normal_, cauchy_, geometric_, torch.random, and the cached Box-Muller
# sample shared by every scalar normal (randn of fewer than 16, log_normal_,
# a strided normal_).
import torch

def show(name, t):
    print(name, t.tolist())

for seed in [0, 5]:
    torch.random.manual_seed(seed)
    print(torch.random.initial_seed(), torch.initial_seed())
    show("log_normal", torch.empty(5).log_normal_())
    show("log_normal_d", torch.empty(4, dtype=torch.float64).log_normal_(0.5, 0.25))
    show("cauchy", torch.empty(5).cauchy_())
    show("cauchy_d", torch.empty(3, dtype=torch.float64).cauchy_(1.0, 2.0))
    show("geometric", torch.empty(6).geometric_(0.3))
    show("geometric_l", torch.empty(6, dtype=torch.int64).geometric_(0.7))
    show("randn1", torch.randn(1))
    show("log_normal1", torch.empty(1).log_normal_())
    show("randn1_d", torch.randn(1, dtype=torch.float64))
    show("normal_T", torch.empty(3, 6).t().normal_())
    show("randn17", torch.randn(17))
    print(torch.random.get_rng_state().shape)
    s = torch.random.get_rng_state()
    a = torch.randn(5)
    torch.random.set_rng_state(s)
    print(torch.equal(a, torch.randn(5)))
print(torch.random.default_generator.initial_seed())

def t(f):
    try:
        f()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)

t(lambda: torch.empty(3).log_normal_(0, -1))
t(lambda: torch.empty(3).geometric_(0))
t(lambda: torch.empty(3, dtype=torch.int64).log_normal_())
t(lambda: torch.empty(3, dtype=torch.int64).cauchy_())
