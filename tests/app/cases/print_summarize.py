# Tensors above 1000 elements print summarised with "...": three items at each
# end of every long dimension; the width comes from the shown elements only.
import torch
print(torch.arange(1001))
print(torch.arange(2000.0).reshape(40, 50) / 7)
print(torch.arange(3000).reshape(10, 20, 15))
x = torch.zeros(1500)
x[700] = 123456.0
print(x)
print(torch.ones(2, 600))
print(torch.arange(1200.0).reshape(1200, 1) - 600)
