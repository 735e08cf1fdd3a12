def g1():
    me.close()
    yield 1
me = g1()
try:
    next(me)
except ValueError as e:
    print("1", e)
def g2():
    yield next(me2)
me2 = g2()
try:
    next(me2)
except ValueError as e:
    print("2", e)
def g3():
    try:
        yield 1
    finally:
        yield 2
x = g3()
next(x)
try:
    x.close()
except RuntimeError as e:
    print("3", e)
def g4():
    yield me4.throw(KeyError("k"))
me4 = g4()
try:
    next(me4)
except ValueError as e:
    print("4", e)
def g5():
    global me5
    del me5
    yield 1
    yield 2
me5 = g5()
print("5", list(me5))
def inner():
    outer_gen.close()
    yield 1
def outer():
    yield from inner()
outer_gen = outer()
try:
    next(outer_gen)
except ValueError as e:
    print("6", e)
def forever():
    try:
        yield 1
    finally:
        n = 0
        while True:
            n += 1
            if n > 100000:
                break
        print("7 finally done")
f = forever()
next(f)
del f
def selfref():
    me = yield
    yield me
s = selfref()
next(s)
print("8", s.send(s) is s)
