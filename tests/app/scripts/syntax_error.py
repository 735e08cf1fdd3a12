x = 1
y = (x +
print(y)
