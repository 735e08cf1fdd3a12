def h():
    return 1 / 0
try:
    print("a")
    h()
finally:
    print("fin")
