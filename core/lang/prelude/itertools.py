# itertools: the iterator building blocks real training code reaches for
# (chain over two models' parameters, islice over a loader, count, product
# over a grid), written as generators. Python's are C types with reprs of
# their own ("<itertools.chain object at 0x...>"); these print as generators.

__all__ = ['count', 'repeat', 'cycle', 'chain', 'islice', 'product', 'accumulate',
           'zip_longest', 'starmap', 'takewhile', 'dropwhile', 'compress',
           'combinations', 'permutations', 'pairwise']


def count(start=0, step=1):
    n = start
    while True:
        yield n
        n += step


def repeat(object, times=None):
    if times is None:
        while True:
            yield object
    else:
        for _ in range(times):
            yield object


def cycle(iterable):
    saved = []
    for element in iterable:
        yield element
        saved.append(element)
    while saved:
        for element in saved:
            yield element


def chain(*iterables):
    for iterable in iterables:
        yield from iterable


def _slice_arg(value, what):
    if value is None:
        return None
    if not isinstance(value, int) or value < 0:
        raise ValueError(what)
    return value


def islice(iterable, *args):
    if len(args) == 0:
        raise TypeError('islice expected at least 2 arguments, got 1')
    if len(args) > 3:
        raise TypeError('islice expected at most 4 arguments, got %d' % (len(args) + 1))
    message = ('Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.'
               if len(args) == 1 else
               'Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.')
    if len(args) == 1:
        start, stop, step = 0, _slice_arg(args[0], message), 1
    else:
        start = _slice_arg(args[0], message) or 0
        stop = _slice_arg(args[1], message)
        step = 1
        if len(args) == 3 and args[2] is not None:
            if not isinstance(args[2], int) or args[2] <= 0:
                raise ValueError('Step for islice() must be a positive integer or None.')
            step = args[2]
    # The arguments are checked now, the items taken later.
    return _islice(iter(iterable), start, stop, step)


def _islice(it, start, stop, step):
    index = 0
    wanted = start
    while stop is None or wanted < stop:
        try:
            element = next(it)
        except StopIteration:
            return
        if index == wanted:
            yield element
            wanted += step
        index += 1


def product(*iterables, repeat=1):
    pools = [tuple(pool) for pool in iterables] * repeat
    result = [()]
    for pool in pools:
        result = [x + (y,) for x in result for y in pool]
    for prod in result:
        yield prod


def accumulate(iterable, func=None, *, initial=None):
    it = iter(iterable)
    total = initial
    if initial is None:
        try:
            total = next(it)
        except StopIteration:
            return
    yield total
    for element in it:
        total = total + element if func is None else func(total, element)
        yield total


def zip_longest(*iterables, fillvalue=None):
    iterators = [iter(it) for it in iterables]
    active = len(iterators)
    if not active:
        return
    while True:
        values = []
        for i, it in enumerate(iterators):
            try:
                value = next(it)
            except StopIteration:
                active -= 1
                if not active:
                    return
                iterators[i] = repeat(fillvalue)
                value = fillvalue
            values.append(value)
        yield tuple(values)


def starmap(function, iterable):
    for args in iterable:
        yield function(*args)


def takewhile(predicate, iterable):
    for x in iterable:
        if not predicate(x):
            return
        yield x


def dropwhile(predicate, iterable):
    it = iter(iterable)
    for x in it:
        if not predicate(x):
            yield x
            break
    for x in it:
        yield x


def compress(data, selectors):
    for d, s in zip(data, selectors):
        if s:
            yield d


def combinations(iterable, r):
    pool = tuple(iterable)
    n = len(pool)
    if r > n:
        return
    indices = list(range(r))
    yield tuple(pool[i] for i in indices)
    while True:
        i = r - 1
        while i >= 0 and indices[i] == i + n - r:
            i -= 1
        if i < 0:
            return
        indices[i] += 1
        for j in range(i + 1, r):
            indices[j] = indices[j - 1] + 1
        yield tuple(pool[i] for i in indices)


def permutations(iterable, r=None):
    pool = tuple(iterable)
    n = len(pool)
    r = n if r is None else r
    if r > n:
        return
    for indices in product(range(n), repeat=r):
        if len(set(indices)) == r:
            yield tuple(pool[i] for i in indices)


def pairwise(iterable):
    it = iter(iterable)
    try:
        a = next(it)
    except StopIteration:
        return
    for b in it:
        yield a, b
        a = b
