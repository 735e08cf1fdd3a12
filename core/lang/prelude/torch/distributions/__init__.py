# torch.distributions: the distributions tutorial code reaches for (policy
# gradients, VAEs, Bayesian toys), written as PyTorch 1.13 writes them in
# Python: the same arithmetic, so values, gradients and grad_fns follow
# PyTorch's, the same random draws, and the same argument checks
# (validate_args on by default).
from torch.distributions.distribution import Distribution
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.normal import Normal
from torch.distributions.categorical import Categorical
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.uniform import Uniform
from torch.distributions.kl import kl_divergence, register_kl
from torch.distributions import constraints

__all__ = ['Distribution', 'ExponentialFamily', 'Normal', 'Categorical', 'Bernoulli', 'Uniform',
           'kl_divergence', 'register_kl', 'constraints']


def __getattr__(name):
    torch._C._missing_attribute('torch.distributions', name)


import torch
