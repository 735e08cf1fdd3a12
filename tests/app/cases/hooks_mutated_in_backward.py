import torch

def show(name, t):
    print(name, t)

# A hook removes itself: it runs once, the later hooks still run.
x = torch.ones(2, requires_grad=True)
hs = {}
def self_remove(g):
    print("self_remove")
    hs["a"].remove()
    return g * 2
hs["a"] = x.register_hook(self_remove)
x.register_hook(lambda g: print("second", g))
(x * 3).sum().backward()
show("leaf self", x.grad)
x.grad = None
(x * 3).sum().backward()
show("leaf self again", x.grad)

# A hook removes a later hook: the later one does not run.
x = torch.ones(2, requires_grad=True)
y = x * 2
hs = {}
def remove_next(g):
    print("remove_next")
    hs["b"].remove()
    return g + 1
hs["a"] = y.register_hook(remove_next)
hs["b"] = y.register_hook(lambda g: print("never", g))
hs["c"] = y.register_hook(lambda g: print("third", g))
y.sum().backward()
show("nonleaf later", x.grad)

# A hook removes an earlier hook: nothing is skipped.
x = torch.ones(2, requires_grad=True)
y = x * 2
hs = {}
def remove_prev(g):
    print("remove_prev")
    hs["a"].remove()
hs["a"] = y.register_hook(lambda g: print("first", g))
hs["b"] = y.register_hook(remove_prev)
hs["c"] = y.register_hook(lambda g: print("after", g))
y.sum().backward(retain_graph=True)
y.sum().backward()
show("nonleaf earlier", x.grad)

# A hook registers a new hook on the same tensor.
x = torch.ones(2, requires_grad=True)
y = x * 2
count = [0]
def adder(g):
    count[0] += 1
    print("adder", count[0])
    if count[0] < 3:
        y.register_hook(lambda g: print("added", g) or g * 5)
y.register_hook(adder)
y.sum().backward(retain_graph=True)
show("added once", x.grad)
y.sum().backward()
show("added twice", x.grad)

# The same on a leaf.
x = torch.ones(2, requires_grad=True)
count = [0]
def leaf_adder(g):
    count[0] += 1
    if count[0] < 3:
        x.register_hook(lambda g: g * 7)
    return g + 1
x.register_hook(leaf_adder)
(x * 1).sum().backward()
show("leaf added", x.grad)

# Removing a handle twice, and after backward, is harmless.
x = torch.ones(2, requires_grad=True)
hd = x.register_hook(lambda g: g * 2)
hd.remove()
hd.remove()
(x * 1).sum().backward()
show("removed twice", x.grad)
