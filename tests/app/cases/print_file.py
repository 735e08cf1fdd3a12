# print(file=...): a script has no files (no open(), no sys), so file= is an
# object with a write() method, called once per piece as Python's print does;
# file=None is stdout; anything else is Python's AttributeError.
class Sink:
    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)
        return len(s)


class Flushing(Sink):
    def flush(self):
        self.parts.append('<flushed>')


s = Sink()
print(1, 'a', 2.5, sep='-', end='!\n', file=s)
print(file=s)
print([1, 2], {'k': (3,)}, file=s, flush=False)
print(s.parts)
t = Flushing()
print('x', 3, file=t, flush=True)
print(t.parts)
print('to stdout', file=None)
for f in [5, 'x', Sink, [1]]:
    try:
        print('hi', file=f)
    except (AttributeError, TypeError) as e:
        print(type(e).__name__, e)
try:
    print('no flush', file=Sink(), flush=True)
except AttributeError as e:
    print(type(e).__name__, e)
print(1, file=3)
