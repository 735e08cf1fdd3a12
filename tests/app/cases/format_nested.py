# Nested replacement fields in format specs, in f-strings, str.format (where
# automatic numbering gives the outer field its number first) and format().
x = 3.14159
w, p = 10, 3
print(f"{x:{w}.{p}f}|")
print(f"{'ab':>{w}}|{7:0{p}d}|{x:{'<'}{w}}|{x:^{w + 2}.{p - 1}e}|")
print("{:{}.{}f}|".format(x, w, p))
print("{0:{1}}|{0:>{width}.{prec}}|".format(2.5, 8, width=9, prec=2))
print("{:{}}|{:{}}|".format('a', 4, 'b', 3))
print("{name:{fill}^{n}}|".format(name='mid', fill='*', n=9))
print(format(x, f"{w}"), format(x, f".{p}"), format(1234567, f"{w},"))
# %-formatting with * widths and precisions.
print('%*d|%-*d|%.*f|%*.*f|' % (5, 42, 5, 42, 2, x, 8, 1, x))
print('%*s|%-5s|%.2s|' % (-6, 'ab', 'c', 'xyz'))
print('%(a)5.1f|%(b)-4d|' % {'a': 2.25, 'b': 7})
for spec in ['%99999999999999999999d', '%.99999999999999999999f']:
    try:
        print(spec % 1)
    except ValueError as e:
        print(type(e).__name__, e)
try:
    format(1.0, '.3000000000f')
except ValueError as e:
    print(type(e).__name__, e)
try:
    format(1, '>99999999999999999999')
except ValueError as e:
    print(type(e).__name__, e)
print(len(format('ab', '.9999999999')))
