# torch.nn.functional: the native functions (torch._C._nn) and, below, those
# written in script on top of tensor operations.
import math
import torch
from torch._C._nn import *


def linear(input, weight, bias=None):
    # The graph PyTorch records: addmm for a batch of rows, a view around it
    # for more dimensions.
    if input.dim() == 2:
        if bias is None:
            return input.mm(weight.t())
        return torch.addmm(bias, input, weight.t())
    if input.dim() > 2:
        rows = input.reshape(-1, input.shape[-1])
        out = rows.mm(weight.t()) if bias is None else torch.addmm(bias, rows, weight.t())
        return out.view(*(list(input.shape[:-1]) + [weight.shape[0]]))
    out = torch.matmul(input, weight.t())
    return out if bias is None else out + bias


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        torch._C._warn("Implicit dimension choice for softmin has been deprecated. "
                       "Change the call to include dim=X as an argument.")
        dim = 0 if input.dim() in (0, 1, 3) else 1
    if dtype is None:
        return softmax(-input, dim)
    return softmax(-input, dim, dtype=dtype)


def _reduce(loss, reduction):
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    if reduction == 'none':
        return loss
    raise ValueError("{} is not a valid value for reduction".format(reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False):
    # PyTorch 1.13's composite: target * (log target - input), batchmean as
    # the sum over the batch size.
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == 'mean':
        torch._C._warn("reduction: 'mean' divides the total loss by both the batch size and the "
                       "support size.'batchmean' divides only by the batch size, and aligns with "
                       "the KL div math definition.'mean' will be changed to behave the same as "
                       "'batchmean' in the next major release.")
    if log_target:
        output = torch.exp(target) * (target - input)
    else:
        output = torch.xlogy(target, target) - target * input
    reduced = _reduce(output, 'sum' if reduction == 'batchmean' else reduction)
    if reduction == 'batchmean' and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


_native_cross_entropy = cross_entropy


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = 'mean' if size_average and reduce else 'sum' if reduce else 'none'
    torch._C._warn("size_average and reduce args will be deprecated, please use "
                   "reduction='{}' instead.".format(ret))
    return ret


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction='mean', label_smoothing=0.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if label_smoothing == 0.0:
        return _native_cross_entropy(input, target, weight, ignore_index=ignore_index,
                                     reduction=reduction)
    if label_smoothing < 0.0 or label_smoothing > 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: {}".format(
            label_smoothing))
    class_dim = 1 if input.dim() >= 2 else 0
    logp = log_softmax(input, class_dim)
    if target.is_floating_point() and target.shape == input.shape:
        n_classes = input.shape[class_dim]
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
        return _native_cross_entropy(input, target, weight, ignore_index=ignore_index,
                                     reduction=reduction)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    # PyTorch 1.13's cross_entropy_loss_label_smoothing, step by step.
    n_classes = input.shape[class_dim]
    ignore_mask = target == ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = weight.shape[0]
        smooth_loss = -(logp * weight.view(shape)).sum(class_dim)
    else:
        smooth_loss = -logp.sum(class_dim)
    smooth_loss = smooth_loss.masked_fill(ignore_mask, 0.0)
    if reduction == 'mean':
        if weight is not None:
            ret = smooth_loss.sum() / weight.gather(0, target[~ignore_mask].flatten()).sum()
        else:
            ret = smooth_loss.sum() / (~ignore_mask).sum()
    elif reduction == 'sum':
        ret = smooth_loss.sum()
    else:
        ret = smooth_loss
    return (1 - label_smoothing) * loss + ret * (label_smoothing / n_classes)


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    elif tensor.numel() > 0 and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    if tensor.numel() > 0 and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    return (tensor.unsqueeze(-1) == torch.arange(num_classes)).long()


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction='mean'):
    # PyTorch 1.13's composite: max(0, -target * (input1 - input2) + margin).
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            "input1: {}, input2: {}, target: {} ".format(input1.size(), input2.size(),
                                                          target.size()))
    output = torch.clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(output, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction='mean'):
    # PyTorch 1.13's composite over pairwise distances.
    reduction = _legacy_reduction(size_average, reduce, reduction)
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            "of dimensions, but got: anchor {}D, positive {}D, and negative {}D inputs".format(
                a_dim, p_dim, n_dim))
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = torch.min(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = torch.clamp_min(margin + dist_pos - dist_neg, 0)
    return _reduce(output, reduction)


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
                recompute_scale_factor=None, antialias=False):
    # PyTorch 1.13's checks, in its order and words, then one of torch._C._nn's
    # upsample ops with either output_size or scale_factors (the other None).
    if mode in ('nearest', 'area', 'nearest-exact'):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    else:
        if align_corners is None:
            align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "output size in (o1, o2, ...,oK) format.")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but "
                                 f"got input with spatial dimensions of {list(input.shape[2:])} and "
                                 f"scale_factor of shape {scale_factor}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")

    nn = torch._C._nn
    if input.dim() == 3 and mode == "nearest":
        return nn.upsample_nearest1d(input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest":
        return nn.upsample_nearest2d(input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest":
        return nn.upsample_nearest3d(input, output_size, scale_factors)
    if input.dim() == 3 and mode == "nearest-exact":
        return nn._upsample_nearest_exact1d(input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest-exact":
        return nn._upsample_nearest_exact2d(input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest-exact":
        return nn._upsample_nearest_exact3d(input, output_size, scale_factors)
    if input.dim() == 3 and mode == "area":
        return adaptive_avg_pool1d(input, output_size)
    if input.dim() == 4 and mode == "area":
        return adaptive_avg_pool2d(input, output_size)
    if input.dim() == 3 and mode == "linear":
        return nn.upsample_linear1d(input, output_size, align_corners, scale_factors)
    if input.dim() == 4 and mode == "bilinear":
        if antialias:
            torch._C._missing_attribute('torch.nn.functional', 'interpolate(antialias=True)')
        return nn.upsample_bilinear2d(input, output_size, align_corners, scale_factors)
    if input.dim() == 5 and mode == "trilinear":
        return nn.upsample_trilinear3d(input, output_size, align_corners, scale_factors)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 3 and mode == "trilinear":
        raise NotImplementedError("Got 3D input, but trilinear mode needs 5D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if input.dim() == 4 and mode == "trilinear":
        raise NotImplementedError("Got 4D input, but trilinear mode needs 5D input")
    if input.dim() == 5 and mode == "linear":
        raise NotImplementedError("Got 5D input, but linear mode needs 3D input")
    if input.dim() == 5 and mode == "bilinear":
        raise NotImplementedError("Got 5D input, but bilinear mode needs 4D input")
    if mode in ("bicubic", "area") and 3 <= input.dim() <= 5:
        torch._C._missing_attribute('torch.nn.functional', f"interpolate(mode='{mode}')")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        " (got {}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"
        " (got {})".format(input.dim(), mode)
    )


def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    torch._C._warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    torch._C._warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    torch._C._warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# What torch.nn.functional has in PyTorch 1.13 and Chainrule lacks says so.
def __getattr__(name):
    torch._C._missing_attribute('torch.nn.functional', name)
