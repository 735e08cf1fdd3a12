try:
    x = [1][3]
except IndexError:
    print("c")
    raise
