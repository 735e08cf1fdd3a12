# grad_fn._saved_* of reductions, softmax, convolutions, addmm and shape ops
# under PyTorch 1.13's names (dims given non-negative: PyTorch shows a
# negative dim as the unsigned number it was stored as).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 3, 4, requires_grad=True)


def show(label, t, *names):
    node = t.grad_fn
    values = []
    for n in names:
        v = getattr(node, '_saved_' + n)
        if isinstance(v, torch.Tensor):
            v = 'tensor' + str(tuple(v.shape)) + ('=x' if v is x else '')
        values.append(n + '=' + str(v))
    print(label, node.name(), ' '.join(values))


show('sum', x.sum(), 'self_sym_sizes')
show('sum_dim', x.sum(1), 'dim', 'keepdim', 'self_sym_sizes')
show('sum_dims', x.sum((0, 2), keepdim=True), 'dim', 'keepdim', 'self_sym_sizes')
show('mean', x.mean(), 'self_numel', 'self_sizes')
show('mean_dim', x.mean(2, keepdim=True), 'dim', 'keepdim', 'self_sym_sizes')
show('prod', x.prod(), 'self', 'result')
show('max', x.max(), 'self', 'result')
show('min', x.min(), 'self', 'result')
show('max_dim', x.max(1)[0], 'dim', 'keepdim', 'indices', 'self_sizes')
show('min_dim', x.min(2, keepdim=True)[0], 'dim', 'keepdim', 'indices', 'self_sizes')
show('amax', x.amax(1), 'dim', 'keepdim', 'self', 'result')
show('amin', x.amin((0, 1), True), 'dim', 'keepdim', 'self', 'result')
show('var', x.var(1), 'correction', 'dim', 'keepdim', 'self')
show('var_all', x.var(unbiased=False), 'correction', 'dim', 'keepdim')
show('std', x.std(), 'correction', 'dim', 'keepdim', 'self', 'result')
show('std_dim', x.std(2, keepdim=True), 'correction', 'dim', 'keepdim')
show('logsumexp', x.logsumexp(1), 'dim', 'keepdim', 'self', 'result')
show('norm', x.norm(), 'dim', 'keepdim', 'p', 'self', 'result')
show('norm_dim', x.norm(p=1, dim=1), 'dim', 'keepdim', 'p')
show('norm_p3', x.norm(3, dim=(1, 2), keepdim=True), 'dim', 'keepdim', 'p')
show('cumsum', x.cumsum(1), 'dim')
show('softmax', x.softmax(1), 'dim', 'result')
show('log_softmax', F.log_softmax(x, 0), 'dim', 'result')

w = torch.randn(2, 3, 2, requires_grad=True)
b = torch.randn(2, requires_grad=True)
conv_fields = ('stride', 'padding', 'dilation', 'groups', 'transposed', 'output_padding',
               'bias_sym_sizes_opt', 'input', 'weight')
show('conv1d', F.conv1d(x, w, stride=2, padding=1), *conv_fields)
show('conv1d_bias', F.conv1d(x, w, b, dilation=2), *conv_fields)
x2 = torch.randn(1, 4, 5, 5, requires_grad=True)
show('conv2d', F.conv2d(x2, torch.randn(6, 2, 3, 2, requires_grad=True), groups=2,
                        stride=(2, 1), padding=(1, 0)), *conv_fields)
show('conv_transpose1d', F.conv_transpose1d(x, torch.randn(3, 2, 2, requires_grad=True),
                                            stride=2, output_padding=1), *conv_fields)
show('conv_transpose2d', F.conv_transpose2d(x2, torch.randn(4, 1, 2, 2, requires_grad=True),
                                            torch.zeros(1, requires_grad=True), padding=1),
     *conv_fields)
conv = torch.nn.Conv2d(4, 3, 3, padding='same')
y = conv(x2)
show('nn.Conv2d', y, 'stride', 'padding', 'bias_sym_sizes_opt')
print(y.grad_fn._saved_weight is conv.weight, y.grad_fn._saved_input is x2)

m = torch.randn(4, requires_grad=True)
p = torch.randn(2, 3, requires_grad=True)
q = torch.randn(3, 4, requires_grad=True)
show('addmm', torch.addmm(m, p, q), 'beta', 'alpha', 'mat1', 'mat2', 'mat1_sym_sizes',
     'mat2_sym_sizes')
show('addmm_scaled', torch.addmm(m, p, q, beta=0.5, alpha=-2), 'beta', 'alpha')
show('view', x.view(6, 4), 'self_sym_sizes')
show('expand', x[:, :1].expand(2, 5, 4), 'self_sym_sizes')
show('permute', x.permute(2, 0, 1), 'dims')
show('transpose', x.transpose(0, 2), 'dim0', 'dim1')
show('unsqueeze', x.unsqueeze(1), 'dim')
show('cat', torch.cat([x, x], 1), 'dim')

y = x.sum(1)
y.sum().backward()
try:
    y.grad_fn._saved_dim
    print(y.grad_fn._saved_self_sym_sizes)
    x.max(1)[0].sum().backward()
    z = x.max(1)[0]
    z.sum().backward()
    z.grad_fn._saved_indices
except RuntimeError as e:
    print(str(e)[:80])

a = torch.randn(3, 4, requires_grad=True)
t = torch.randn(3, 4)
show('select', x[1], 'dim', 'index', 'self_sizes')
show('squeeze', x.unsqueeze(2).squeeze(2), 'dim', 'self_sizes')
show('clamp', x.clamp(0, 1), 'min', 'max')
show('clamp_min', x.clamp(min=-0.5), 'min', 'max')
show('clamp_max', torch.clamp(x, max=2), 'min', 'max')
show('mse', F.mse_loss(a, t), 'reduction', 'self', 'target')
show('mse_sum', F.mse_loss(a, t, reduction='sum'), 'reduction')
show('huber', F.huber_loss(a, t, reduction='none', delta=0.5), 'reduction', 'delta', 'self', 'target')
show('smooth_l1', F.smooth_l1_loss(a, t, beta=2.0), 'reduction', 'beta', 'self', 'target')

w3 = torch.randn(3, requires_grad=True)
show('batch_norm', F.batch_norm(x, None, None, w3, None, training=True, eps=1e-3),
     'eps', 'training', 'input', 'weight')
show('batch_norm_eval', F.batch_norm(x, torch.zeros(3), torch.ones(3), w3), 'eps', 'training',
     'input')
show('layer_norm', F.layer_norm(x, (3, 4)), 'normalized_shape', 'input', 'weight')
show('layer_norm_w', F.layer_norm(x, (4,), torch.ones(4, requires_grad=True)), 'normalized_shape',
     'weight')
show('group_norm', F.group_norm(x2, 2, torch.ones(4, requires_grad=True), eps=1e-4), 'eps',
     'group', 'N', 'C', 'HxW', 'input', 'weight')
