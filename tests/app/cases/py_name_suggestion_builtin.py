values = [3, 1, 2]
print(sorted(values))
print(lenn(values))
