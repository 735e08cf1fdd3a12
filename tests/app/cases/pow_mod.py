# Three-argument pow as Python 3.8+: a negative exponent raises the modular
# inverse, a negative modulus gives a result in (mod, 0], bools are ints.
print(pow(3, -1, 7), pow(-3, -1, 7), pow(2, 10, -7), pow(3, 5, -7))
print(pow(3, 0, 1), pow(True, -1, 5), pow(3, -1, 1), pow(0, 0, 1), pow(5, 0, 3))
print(pow(38, -1, 97), pow(2, -3, 11), pow(-2, -3, 11), pow(10**18, -1, 10**9 + 7))
print(pow(2, 10**18, 10**9 + 7), pow(-9223372036854775807 - 1, 3, 1000))
print(pow(7, 3, -9223372036854775807 - 1), pow(3, -1, -9223372036854775807 - 1))
print(pow(123456789, -5, 9223372036854775807))
for a, b, m in [(3, -1, 6), (0, -1, 7), (7, -2, 7), (3, 2, 0), (3.0, 2, 5), (2, 3, 5.0), (2, 0.5, 3)]:
    try:
        print(pow(a, b, m))
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
print(pow(3, -1, 6))
