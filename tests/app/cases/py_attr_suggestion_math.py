import math
print(math.sqrt(16.0))
print(math.sqr(2.0))
