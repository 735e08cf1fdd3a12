import torch
try:
    x = 1 / 0
except ZeroDivisionError as e:
    print("caught", e, type(e).__name__, repr(e), e.args)
try:
    [1][5]
except LookupError as e:
    print("lookup", e, isinstance(e, IndexError), isinstance(e, Exception))
try:
    {"a": 1}["b"]
except (ValueError, KeyError) as e:
    print("key", e, repr(e), e.args)
try:
    raise ValueError("x")
except Exception as e:
    print(str(e), repr(e))
else:
    print("no")
finally:
    print("fin")
try:
    print("ok")
except:
    print("bad")
else:
    print("else")
finally:
    print("fin2")
class MyErr(RuntimeError):
    pass
def f():
    raise MyErr("mine", 3)
try:
    f()
except RuntimeError as e:
    print(type(e).__name__, e, e.args)
a = torch.tensor([1.0, 2.0], requires_grad=True)
y = (a * a).sum()
y.backward(retain_graph=False)
try:
    y.backward()
except RuntimeError as e:
    print("err:", e)
def g():
    try:
        return 1
    finally:
        print("g fin")
print(g())
for i in range(3):
    try:
        if i == 1:
            continue
        print("i", i)
    finally:
        print("f", i)
try:
    try:
        raise KeyError("k")
    except KeyError:
        print("inner")
        raise
except Exception as e:
    print("outer", repr(e))
try:
    raise TypeError
except TypeError as e:
    print(repr(e), e.args, str(e) == "")
try:
    int("abc")
except ValueError as e:
    print(e)
try:
    undefined_name
except NameError as e:
    print(e)
print("e" in dir() if False else "done")
try:
    try:
        1/0
    finally:
        print("cleanup")
except ArithmeticError as e:
    print("arith", e)
