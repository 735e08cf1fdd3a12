def f(xs):
    return [(yield x) for x in xs]
