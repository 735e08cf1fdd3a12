# Slice assignment and deletion on lists (done in one pass, not per item).
l = list(range(20))
del l[::3]
print(l)
l = list(range(20))
del l[15:2:-4]
print(l)
l = list(range(10))
l[2:5] = "abcdef"
print(l)
l[0:0] = [1, 2]
print(l)
l[-1:] = []
print(l, len(l))
l[len(l):] = range(3)
print(l)
l[3:1] = ['x']
print(l)
del l[100:]
del l[:]
print(l)
l = list(range(6))
del l[::-1]
print(l)
l = list(range(6))
del l[1::2]
print(l)
l = list(range(6))
l[::2] = 'abc'
print(l)
l = list(range(10 ** 5))
l[:0] = range(10 ** 5)
del l[::2]
print(len(l), l[:3], l[-3:])
l[1:3] = l
print(len(l))
k = [1, 2]
del k[15:2:-4]
del k[5:0:-3]
print(k, len(k))
