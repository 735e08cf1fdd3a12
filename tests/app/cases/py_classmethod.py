class Shape:
    count = 0
    def __init__(self, n):
        self.n = n
        Shape.count += 1
    @classmethod
    def square(cls):
        return cls(4)
    @classmethod
    def describe(cls, prefix='kind'):
        return f'{prefix}: {cls.__name__} ({cls.count} made)'
class Tri(Shape):
    @classmethod
    def describe(cls, prefix='tri'):
        return super().describe(prefix) + '!'
s = Shape.square()
print(s.n, type(s).__name__, Shape.describe(), s.describe('obj'))
t = Tri.square()
print(type(t).__name__, t.describe(), Tri.describe('x'))
print(Shape.describe)
