# grad_fn._saved_* of the activations with parameters, as the script gave
# them (an int stays an int).
import torch
import torch.nn.functional as F

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
g = F.hardtanh(x).grad_fn
print(g._saved_min_val, g._saved_max_val, g._saved_self)
g = F.hardtanh(x, -2, 3).grad_fn
print(g._saved_min_val, g._saved_max_val)
g = F.relu6(x).grad_fn
print(g._saved_min_val, g._saved_max_val)
g = F.leaky_relu(x).grad_fn
print(g._saved_negative_slope)
g = F.leaky_relu(x, 1).grad_fn
print(g._saved_negative_slope)
g = F.elu(x).grad_fn
print(g._saved_alpha, g._saved_scale, g._saved_input_scale, g._saved_self)
g = F.selu(x).grad_fn
print(g._saved_alpha, g._saved_scale, g._saved_input_scale)
g = F.celu(x, 0.5).grad_fn
print(g._saved_alpha)
g = F.softplus(x).grad_fn
print(g._saved_beta, g._saved_threshold)
g = F.softplus(x, 0.5, 4.0).grad_fn
print(g._saved_beta, g._saved_threshold)
print(F.gelu(x).grad_fn._saved_approximate, F.gelu(x, approximate='tanh').grad_fn._saved_approximate)
g = F.threshold(x, 0.1, 20).grad_fn
print(g._saved_threshold)
print(F.hardshrink(x).grad_fn._saved_lambd, F.softshrink(x, 1).grad_fn._saved_lambd)
y = F.leaky_relu(x * 1, 0.2, inplace=True)
print(y.grad_fn._saved_negative_slope, y.grad_fn._saved_result)
y = F.elu(x * 1, inplace=True)
print(y.grad_fn._saved_alpha, y.grad_fn._saved_result)
