# torch.distributions.kl: kl_divergence(p, q) by the pair of types, and
# register_kl to add a pair. The closed forms are PyTorch 1.13's.
import math
import torch
import torch.nn.functional as F
from torch.distributions.distribution import Distribution
from torch.distributions.normal import Normal
from torch.distributions.categorical import Categorical
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.uniform import Uniform

_KL_REGISTRY = {}


def register_kl(type_p, type_q):
    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        return fun
    return decorator


def _mro_distance(cls, base):
    # How many steps up cls's bases base is, or None.
    steps = 0
    while cls is not None:
        if cls is base:
            return steps
        bases = cls.__bases__
        cls = bases[0] if bases else None
        steps += 1
    return None


def _dispatch_kl(type_p, type_q):
    # The most specific registered pair, by distance up each type's bases.
    best = None
    for (super_p, super_q), fun in _KL_REGISTRY.items():
        dp = _mro_distance(type_p, super_p)
        dq = _mro_distance(type_q, super_q)
        if dp is None or dq is None:
            continue
        if best is None or (dp, dq) < best[0]:
            best = ((dp, dq), fun)
    return best[1] if best is not None else NotImplemented


def kl_divergence(p, q):
    fun = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError("No KL(p || q) is implemented for p type {} and q type {}"
                                  .format(p.__class__.__name__, q.__class__.__name__))
    return fun(p, q)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = (common_term).pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)
