# Plain Python output: print's sep/end, numbers, containers, f-strings.
xs = [0.5 * i for i in range(4)]
print("xs =", xs, sep=" ", end="!\n")
print(f"{sum(xs):.2f}", 7 // 2, 2 ** -1, {"k": (1,)})
