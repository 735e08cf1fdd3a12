# __setattr__ / __delattr__ / __getattribute__ / __getattr__ on script classes,
# as nn.Module's registration uses them.
class Registry:
    def __init__(self):
        object.__setattr__(self, "log", [])
        self.ready = True

    def __setattr__(self, name, value):
        self.log.append((name, value))
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        print("delete", name)
        super().__delattr__(name)

    def __getattr__(self, name):
        return "missing " + name

    @property
    def broken(self):
        raise AttributeError("inner")


r = Registry()
r.x = 1
r.y = [2]
print(r.log, r.x, r.y, r.z, r.broken)
del r.x
print(r.x)
print(object.__getattribute__(r, "y"))
setattr(r, "w", 4)
print(getattr(r, "w"), hasattr(r, "nothing"), r.log)
delattr(r, "w")
print(r.w)


class Child(Registry):
    def __setattr__(self, name, value):
        print("Child sets", name)
        super().__setattr__(name, value)


c = Child()
c.q = 5
print(c.q, c.log)


class Magic:
    def __getattribute__(self, name):
        if name == "magic":
            return 42
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return "fallback " + name


m = Magic()
m.k = 3
print(m.magic, m.k, m.other)


class Temperature:
    def __init__(self):
        self._c = 0.0

    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, value):
        print("setting", value)
        self._c = value

    @celsius.deleter
    def celsius(self):
        print("deleting")
        self._c = None

    @property
    def fixed(self):
        return 1


t = Temperature()
t.celsius = 21.5
print(t.celsius, t.__dict__)
del t.celsius
print(t._c)
for action in (lambda: setattr(t, "fixed", 2), lambda: delattr(t, "fixed"),
               lambda: delattr(t, "nope"), lambda: object.__setattr__(t, 1, 2),
               lambda: object.__setattr__(t, "x"), lambda: object.__getattribute__(t, "zz"),
               lambda: object.__delattr__(t, "q")):
    try:
        action()
    except (AttributeError, TypeError) as e:
        print(type(e).__name__, e)
print(type(Temperature.celsius).__name__, Temperature.fixed.fget(t))
