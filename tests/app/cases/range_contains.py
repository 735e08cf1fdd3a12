# `in` on a range is arithmetic (no list), exact at the ends of int64.
big = 9223372036854775807
small = -big - 1
print(small in range(10), big in range(10), small in range(5, 10, -1))
print(small in range(small, big), big - 1 in range(small, big), big in range(small, big))
print(0 in range(small, big, 3), 1 in range(small, big, 3), 7 in range(big, small, -7))
print(big - 7 in range(big, small, -7), small + 1 in range(big, small, -7))
print(10**12 in range(10**15), 10**12 + 1 in range(0, 10**15, 2), 5 in range(10, 0, -5))
print(2.0 in range(5), 2.5 in range(5), 1e300 in range(5), float('nan') in range(5), True in range(2))
print(-3 in range(0, -10, -3), -4 in range(0, -10, -3), 3 in range(0), 'a' in range(3))
# Indexing, slicing and iterating near the ends of int64, without overflow.
print(range(10)[2:8:2], range(10)[::-1], range(10)[8:2:-3], range(10)[5:2], range(0, 30, 3)[1::2])
print(range(-5, 5)[::3], range(10, 0, -2)[1:], range(10)[-3:], range(10)[100:], range(5)[::-2])
print(list(range(big - 10, big, 3)[1:]), range(big - 10, big, 3)[-1])
print(list(range(0, big, 2**62)), list(range(0, big, 2**62)[::-1]))
for i in range(0, big, 2**62):
    print(i)
print(range(10**18)[10**17], range(-big - 1, big, 2**40)[5], range(-big - 1, big)[-2])
