# Python's TypeError for an operation between unsupported types.
import torch
count = 3
print(count + 1)
label = "step " + count
