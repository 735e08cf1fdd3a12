# A micrograd-style scalar engine whose backward writes gradients with =:
# a value used twice gets the gradient of one path only.
class Value:
    def __init__(self, data, children=(), op=""):
        self.data = data
        self.grad = 0.0
        self._prev = children
        self._op = op

    def __add__(self, other):
        return Value(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")

    def _backward(self):
        if self._op == "+":
            a, b = self._prev
            a.grad = self.grad
            b.grad = self.grad
        elif self._op == "*":
            a, b = self._prev
            a.grad = b.data * self.grad
            b.grad = a.data * self.grad

    def _build(self, topo, seen):
        if self not in seen:
            seen.add(self)
            for child in self._prev:
                child._build(topo, seen)
            topo.append(self)

    def backward(self):
        topo = []
        self._build(topo, set())
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

a = Value(2.0)
b = Value(3.0)
c = a * b + a
c.backward()
print(a.grad, b.grad)
