# del of an empty extended slice whose start lies past the end (a negative
# step) grew the list with NULL items that printing then read.
l = [1, 2]
del l[15:2:-4]
print(l)
