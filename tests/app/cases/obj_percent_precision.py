# printf-style integer precision: "%.5d" % 3 is "00003", with the sign, the
# '#' prefix, the width and the '0' flag as Python's formatting has them.
for f,v in [("%.5d",3),("%.5d",-3),("%8.5d",3),("%-8.5d|",3),("%08.5d",3),("%+.3d",7),("% .3d",7),("%.4x",255),("%#.4x",255),("%#.4o",8),("%.0d",0),("%.2d",12345),("%#8.4X",255),("%08.3d",-5),("%.3i",5),("%.3u",5),("%.5d",True),("%.3d",2.7),("%5d",42),("%-5d|",42)]:
    print(repr(f), repr(f % v))
print("step %.4d loss %.3f" % (12, 0.5))
print("%(n).3d" % {"n": 9})
