try:
    print("%d" % 1e300)
except OverflowError:
    pass
print("%.dot3f %d" % (31e3089, 42))
