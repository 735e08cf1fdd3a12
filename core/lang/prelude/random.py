# random: Python's random module on the Mersenne Twister of `_random`
# (cr-pyrandom.c). Each function takes the same draws, in the same order,
# as CPython 3.11's, so random.seed(0) then random.shuffle(x) gives the order
# CPython gives. The module functions are methods of one hidden generator.
import math
import _random

_TWOPI = 2.0 * math.pi
_NV_MAGICCONST = 4 * math.exp(-0.5) / math.sqrt(2.0)


class Random:
    def __init__(self, x=None):
        self._mt = _random.Random(x)
        self.gauss_next = None

    def seed(self, a=None):
        self._mt.seed(a)
        self.gauss_next = None

    def random(self):
        return self._mt.random()

    def getrandbits(self, k):
        return self._mt.getrandbits(k)

    def _randbelow(self, n):
        # Whole draws of n's bit length until one falls below n.
        k = n.bit_length()
        r = self._mt.getrandbits(k)
        while r >= n:
            r = self._mt.getrandbits(k)
        return r

    def randrange(self, start, stop=None, step=1):
        istart = _index(start, "arg 1")
        if stop is None:
            if step != 1:
                raise TypeError("Missing a non-None stop argument")
            if istart > 0:
                return self._randbelow(istart)
            raise ValueError("empty range for randrange()")
        istop = _index(stop, "stop")
        width = istop - istart
        istep = _index(step, "step")
        if istep == 1:
            if width > 0:
                return istart + self._randbelow(width)
            raise ValueError("empty range for randrange() (%d, %d, %d)" % (istart, istop, width))
        if istep > 0:
            n = (width + istep - 1) // istep
        elif istep < 0:
            n = (width + istep + 1) // istep
        else:
            raise ValueError("zero step for randrange()")
        if n <= 0:
            raise ValueError("empty range for randrange()")
        return istart + istep * self._randbelow(n)

    def randint(self, a, b):
        return self.randrange(a, b + 1)

    def choice(self, seq):
        if not len(seq):
            raise IndexError("Cannot choose from an empty sequence")
        return seq[self._randbelow(len(seq))]

    def shuffle(self, x):
        for i in reversed(range(1, len(x))):
            j = self._randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def sample(self, population, k, *, counts=None):
        if counts is not None:
            raise NotImplementedError("random.sample(counts=...) is not supported by Chainrule yet")
        if isinstance(population, (set, dict)):
            raise TypeError("Population must be a sequence.  For dicts or sets, use sorted(d).")
        n = len(population)
        if not 0 <= k <= n:
            raise ValueError("Sample larger than population or is negative")
        result = [None] * k
        # CPython picks a pool or a set of taken indices by their sizes.
        setsize = 21
        if k > 5:
            setsize += 4 ** math.ceil(math.log(k * 3, 4))
        if n <= setsize:
            pool = list(population)
            for i in range(k):
                j = self._randbelow(n - i)
                result[i] = pool[j]
                pool[j] = pool[n - i - 1]
        else:
            selected = set()
            for i in range(k):
                j = self._randbelow(n)
                while j in selected:
                    j = self._randbelow(n)
                selected.add(j)
                result[i] = population[j]
        return result

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        n = len(population)
        if cum_weights is None:
            if weights is None:
                nf = n + 0.0
                return [population[math.floor(self.random() * nf)] for i in range(k)]
            cum_weights = []
            total = 0
            for w in weights:
                total = total + w
                cum_weights.append(total)
        elif weights is not None:
            raise TypeError("Cannot specify both weights and cumulative weights")
        if len(cum_weights) != n:
            raise ValueError("The number of weights does not match the population")
        total = cum_weights[-1] + 0.0
        if total <= 0.0:
            raise ValueError("Total of weights must be greater than zero")
        if not math.isfinite(total):
            raise ValueError("Total of weights must be finite")
        hi = n - 1
        return [population[_bisect_right(cum_weights, self.random() * total, hi)]
                for i in range(k)]

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def gauss(self, mu=0.0, sigma=1.0):
        z = self.gauss_next
        self.gauss_next = None
        if z is None:
            x2pi = self.random() * _TWOPI
            g2rad = math.sqrt(-2.0 * math.log(1.0 - self.random()))
            z = math.cos(x2pi) * g2rad
            self.gauss_next = math.sin(x2pi) * g2rad
        return mu + z * sigma

    def normalvariate(self, mu=0.0, sigma=1.0):
        while True:
            u1 = self.random()
            u2 = 1.0 - self.random()
            z = _NV_MAGICCONST * (u1 - 0.5) / u2
            zz = z * z / 4.0
            if zz <= -math.log(u2):
                break
        return mu + z * sigma

    def expovariate(self, lambd):
        return -math.log(1.0 - self.random()) / lambd


def _index(value, what):
    if isinstance(value, bool) or isinstance(value, int):
        return int(value)
    raise TypeError("'%s' object cannot be interpreted as an integer" % type(value).__name__)


def _bisect_right(a, x, hi):
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


_inst = Random()
seed = _inst.seed
random = _inst.random
getrandbits = _inst.getrandbits
randrange = _inst.randrange
randint = _inst.randint
choice = _inst.choice
shuffle = _inst.shuffle
sample = _inst.sample
choices = _inst.choices
uniform = _inst.uniform
gauss = _inst.gauss
normalvariate = _inst.normalvariate
expovariate = _inst.expovariate
