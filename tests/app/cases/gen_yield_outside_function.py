def f():
    yield 1
print(list(f()))
yield 2
