import itertools
from itertools import count, islice, chain, product
print(list(islice(count(), 5)), list(islice(count(10, 2), 1, 7, 2)))
print(list(zip(count(1), "ab")))
print(list(chain([1, 2], (3, 4), range(5, 7))))
print(list(product([0, 1], "ab")), list(product(range(2), repeat=2)))
print(list(itertools.accumulate([1, 2, 3, 4])), list(itertools.accumulate([1, 2, 3], lambda a, b: a * b, initial=10)))
print(list(itertools.zip_longest("abc", [1], fillvalue=0)))
print(list(itertools.repeat(7, 3)), list(islice(itertools.cycle("ab"), 5)))
print(list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.takewhile(lambda x: x < 3, count())))
print(list(itertools.dropwhile(lambda x: x < 3, range(6))), list(itertools.compress("abcd", [1, 0, 1, 0])))
print(list(itertools.combinations("abcd", 2)), list(itertools.permutations(range(3), 2)))
print(list(itertools.pairwise([1, 2, 3])), list(islice([1, 2, 3], None)), list(islice("abcdef", 2, None)))
import torch
a = [torch.ones(1, requires_grad=True)]
b = [torch.zeros(2, requires_grad=True)]
print(sum(p.numel() for p in chain(a, b)))
try:
    islice([1], -1)
except ValueError as e:
    print(e)
