# torch.nn.init: fill a tensor in place without recording a graph, drawing
# from the generator as PyTorch 1.13 does.
import math
import torch


def calculate_gain(nonlinearity, param=None):
    linear_fns = ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d',
                  'conv_transpose2d', 'conv_transpose3d']
    if nonlinearity in linear_fns or nonlinearity == 'sigmoid':
        return 1
    elif nonlinearity == 'tanh':
        return 5.0 / 3
    elif nonlinearity == 'relu':
        return math.sqrt(2.0)
    elif nonlinearity == 'leaky_relu':
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError("negative_slope {} not a valid number".format(param))
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == 'selu':
        return 3.0 / 4
    else:
        raise ValueError("Unsupported nonlinearity {}".format(nonlinearity))


def uniform_(tensor, a=0., b=1.):
    with torch.no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0., std=1.):
    with torch.no_grad():
        return tensor.normal_(mean, std)


def trunc_normal_(tensor, mean=0., std=1., a=-2., b=2.):
    # PyTorch's inverse-CDF method: uniform in [cdf(a), cdf(b)], then erfinv.
    def norm_cdf(x):
        return (1. + math.erf(x / math.sqrt(2.))) / 2.
    with torch.no_grad():
        low = norm_cdf((a - mean) / std)
        up = norm_cdf((b - mean) / std)
        tensor.uniform_(2 * low - 1, 2 * up - 1)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
        return tensor


def constant_(tensor, val):
    with torch.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with torch.no_grad():
        return tensor.fill_(1.)


def zeros_(tensor):
    with torch.no_grad():
        return tensor.zero_()


def eye_(tensor):
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with torch.no_grad():
        tensor.zero_()
        for i in range(min(tensor.shape[0], tensor.shape[1])):
            tensor[i, i] = 1
    return tensor


def dirac_(tensor, groups=1):
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError('dim 0 must be divisible by groups')
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with torch.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                if dimensions == 3:
                    tensor[g * out_chans_per_grp + d, d, tensor.size(2) // 2] = 1
                elif dimensions == 4:
                    tensor[g * out_chans_per_grp + d, d, tensor.size(2) // 2,
                           tensor.size(3) // 2] = 1
                else:
                    tensor[g * out_chans_per_grp + d, d, tensor.size(2) // 2,
                           tensor.size(3) // 2, tensor.size(4) // 2] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ['fan_in', 'fan_out']
    if mode not in valid_modes:
        raise ValueError("Mode {} not supported, please use one of {}".format(mode, valid_modes))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == 'fan_in' else fan_out


def xavier_uniform_(tensor, gain=1.):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0., std)


def _zero_element_warning(tensor):
    if 0 in tensor.shape:
        torch._C._warn("Initializing zero-element tensors is a no-op")
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    if _zero_element_warning(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with torch.no_grad():
        return tensor.uniform_(-bound, bound)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    if _zero_element_warning(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with torch.no_grad():
        return tensor.normal_(0, std)


def orthogonal_(tensor, gain=1):
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = torch.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1)
    if rows < cols:
        flattened = flattened.t()
    q = _orthonormal_columns(flattened)
    if rows < cols:
        q = q.t()
    with torch.no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def _orthonormal_columns(a):
    # Q of a = QR with R's diagonal made positive, as PyTorch's
    # q * sign(diag(r)): unique, so Householder (LAPACK) and this modified
    # Gram-Schmidt in double precision agree to rounding.
    m = a.size(0)
    n = a.size(1)
    cols = [[float(a[i, j]) for i in range(m)] for j in range(n)]
    q = []
    for j in range(n):
        v = cols[j]
        for u in q:
            dot = sum([u[i] * v[i] for i in range(m)])
            v = [v[i] - dot * u[i] for i in range(m)]
        norm = math.sqrt(sum([x * x for x in v]))
        q.append([x / norm for x in v])
    return torch.tensor([[q[j][i] for j in range(n)] for i in range(m)], dtype=a.dtype)


def sparse_(tensor, sparsity, std=0.01):
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with torch.no_grad():
        tensor.normal_(0, std)
        for col_idx in range(cols):
            row_indices = torch.randperm(rows)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


# The deprecated spellings without the trailing underscore.
def uniform(tensor, a=0., b=1.):
    torch._C._warn("nn.init.uniform is now deprecated in favor of nn.init.uniform_.")
    return uniform_(tensor, a, b)


def normal(tensor, mean=0., std=1.):
    torch._C._warn("nn.init.normal is now deprecated in favor of nn.init.normal_.")
    return normal_(tensor, mean, std)


def constant(tensor, val):
    torch._C._warn("nn.init.constant is now deprecated in favor of nn.init.constant_.")
    return constant_(tensor, val)


def xavier_uniform(tensor, gain=1.):
    torch._C._warn("nn.init.xavier_uniform is now deprecated in favor of nn.init.xavier_uniform_.")
    return xavier_uniform_(tensor, gain)


def xavier_normal(tensor, gain=1.):
    torch._C._warn("nn.init.xavier_normal is now deprecated in favor of nn.init.xavier_normal_.")
    return xavier_normal_(tensor, gain)


def kaiming_uniform(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    torch._C._warn("nn.init.kaiming_uniform is now deprecated in favor of nn.init.kaiming_uniform_.")
    return kaiming_uniform_(tensor, a, mode, nonlinearity)


def kaiming_normal(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    torch._C._warn("nn.init.kaiming_normal is now deprecated in favor of nn.init.kaiming_normal_.")
    return kaiming_normal_(tensor, a, mode, nonlinearity)


def __getattr__(name):
    torch._C._missing_attribute('torch.nn.init', name)
