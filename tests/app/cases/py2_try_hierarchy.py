# Which handler catches which error, along Python's class hierarchy.
import torch

def attempt(fn):
    try:
        fn()
    except IndentationError as e:
        return "IndentationError " + type(e).__name__
    except (KeyError, IndexError) as e:
        return "Lookup " + type(e).__name__ + " " + str(e)
    except ArithmeticError as e:
        return "Arith " + type(e).__name__ + ": " + str(e)
    except NotImplementedError as e:
        return "NotImpl " + repr(e)
    except RuntimeError as e:
        return "Runtime " + repr(e)
    except Exception as e:
        return "Exception " + type(e).__name__ + " " + str(e)
    return "nothing"

class Custom(ValueError):
    def __init__(self, code):
        super().__init__("custom code", code)
        self.code = code

def raise_custom():
    raise Custom(7)

print(attempt(lambda: [][0]))
print(attempt(lambda: {"a": 1}["zz"]))
print(attempt(lambda: {3: 1}[4]))
print(attempt(lambda: 5 // 0))
print(attempt(lambda: 2.0 ** 10000))
print(attempt(lambda: torch.ones(2) + torch.ones(3)))
print(attempt(lambda: torch.ones(2, 3) @ torch.ones(2, 3)))
print(attempt(raise_custom))
print(attempt(lambda: int("x")))
print(attempt(lambda: None + 1))
print(attempt(lambda: torch.ones(2).nosuch))
print(attempt(lambda: 1))

def nested(n):
    if n == 0:
        raise NotImplementedError("deep")
    return nested(n - 1)
print(attempt(lambda: nested(5)))

try:
    raise Custom(3)
except Custom as e:
    print(e.code, e.args, str(e), isinstance(e, ValueError), isinstance(e, Exception))

# The handler's name is unbound after the handler, as in Python.
try:
    1 / 0
except ZeroDivisionError as err:
    pass
try:
    print(err)
except NameError as e:
    print("NameError:", e)

# A finally block runs on every way out.
def ways(kind):
    out = []
    for i in range(2):
        try:
            if kind == "break":
                break
            if kind == "return":
                return "returned"
            if kind == "raise":
                raise RuntimeError("boom")
            out.append(i)
        except RuntimeError as e:
            out.append("caught " + str(e))
        else:
            out.append("else")
        finally:
            out.append("finally")
    return out
for k in ["break", "return", "raise", "normal"]:
    print(k, ways(k))

# Backward twice: the teaching pattern.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as e:
    print("Error:", e)
print(w.grad)
