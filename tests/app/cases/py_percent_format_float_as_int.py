# %d, %i and %u of a float convert it as int() does: truncated, and NaN or
# infinity are Python's errors (the conversion was a C cast: undefined
# behaviour, found by fuzz-interp).
for v in [3.9, -2.5, -1e18, True, float("inf"), float("-inf"), float("nan")]:
    try:
        print("%d|%i|%5u" % (v, v, v))
    except Exception as e:
        print(type(e).__name__, e)
print("%d" % float("nan"))
