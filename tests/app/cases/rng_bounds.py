# random_ and randint at the edges of their dtypes: a float's bounds move
# inside what it can count (PyTorch's update_from/update_to, with its
# warning), bool refuses what it cannot hold, int64 takes its whole range.
import torch

torch.manual_seed(0)
lowest = -9223372036854775807 - 1
highest = 9223372036854775807

def t(f):
    try:
        print("OK", f())
    except Exception as e:
        print(type(e).__name__, e)

t(lambda: torch.empty(3).random_(0, 2**25))
t(lambda: torch.empty(3).random_(0, 2**24 + 1))
t(lambda: torch.empty(3).random_(-2**25, 0))
t(lambda: torch.empty(3, dtype=torch.bool).random_(0, 3))
t(lambda: torch.empty(3, dtype=torch.bool).random_(0, 2))
t(lambda: torch.empty(3, dtype=torch.bool).random_(1))
t(lambda: torch.empty(3).random_(2**25))
t(lambda: torch.empty(3).random_(2**24, None))
t(lambda: torch.empty(3).random_(2**24 - 1, None))
t(lambda: torch.empty(3, dtype=torch.float64).random_(0, 2**60))
t(lambda: torch.empty(3, dtype=torch.int64).random_(lowest, highest))
t(lambda: torch.empty(3, dtype=torch.int64).random_(lowest))
t(lambda: torch.empty(3, dtype=torch.int64).random_(highest - 5))
t(lambda: torch.randint(0, highest, (2,)))
t(lambda: torch.randint(-5, 5, (2,), dtype=torch.bool))
t(lambda: torch.randint(0, 2, (4,), dtype=torch.bool))
t(lambda: torch.randint(2**24, 2**24 + 10, (3,), dtype=torch.float32))
