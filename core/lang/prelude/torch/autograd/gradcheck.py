# torch.autograd.gradcheck and gradgradcheck as PyTorch 1.13's slow mode
# computes them for real inputs: a numerical Jacobian by central differences
# (each input element perturbed in place by +-eps through .data), the
# analytical one row by row through torch.autograd.grad, compared with
# allclose(rtol, atol); then the checks that backward is reentrant and
# multiplies by grad_output. The failures are PyTorch's GradcheckError
# messages. Not here yet: fast_mode, forward AD, batched grads, complex
# inputs and the undefined-grad test of custom Functions.
import torch


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    elif isinstance(x, list):
        return tuple(x)
    else:
        return x,


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _diff_inputs(inputs):
    return [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]


def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, torch.Tensor) and inp.requires_grad:
            if inp.dtype != torch.float64:
                torch._C._warn(
                    f'Input #{idx} requires gradient and '
                    'is not a double precision floating point or complex. '
                    'This check will likely fail if all the inputs are '
                    'not of double precision floating point or complex. ')
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(
                    f'The {idx}th input has a dimension with stride 0. gradcheck only '
                    'supports inputs that are non-overlapping to be able to '
                    'compute the numerical gradients correctly. You should call '
                    '.contiguous on the input before passing it to gradcheck.')
            any_input_requiring_grad = True
            inp.retain_grad()
    if not any_input_requiring_grad:
        raise ValueError(
            'gradcheck expects at least one input tensor to require gradient, '
            'but none of the them have requires_grad=True.')


def _unravel(k, shape):
    idx = []
    for size in reversed(shape):
        idx.append(k % size)
        k = k // size
    return tuple(reversed(idx))


def _numerical_jacobian_wrt_input(fn, inputs, input, outputs, eps):
    # (input.numel(), output.numel()) for each floating output: column k of
    # the Jacobian is (f(x + eps e_k) - f(x - eps e_k)) / (2 eps).
    jacobians = tuple(o.new_zeros((input.numel(), o.numel())) for o in outputs
                      if o.is_floating_point())
    x = input.data
    for k in range(input.numel()):
        entry = x[_unravel(k, list(x.shape))]
        orig = entry.clone()
        entry.copy_(orig - eps)
        outa = tuple(a.clone() for a in _as_tuple(fn(*inputs)))
        entry.copy_(orig + eps)
        outb = tuple(a.clone() for a in _as_tuple(fn(*inputs)))
        entry.copy_(orig)
        for i, (a, b) in enumerate(zip(outa, outb)):
            if a.shape != b.shape:
                raise AssertionError(f"Expected `func` to return outputs with the same shape"
                                     f" when inputs are perturbed on index {_unravel(k, list(x.shape))} by {eps}, but got:"
                                     f" shapes {a.shape} and {b.shape}.")
            if i < len(jacobians):
                jacobians[i][k] = ((b - a) / (2 * eps)).detach().reshape(-1)
    return jacobians


def _numerical_jacobian(fn, inputs, outputs, eps):
    # A list over the inputs that require grad of tuples over the outputs.
    return [_numerical_jacobian_wrt_input(fn, inputs, inp, outputs, eps)
            for inp in _diff_inputs(inputs)]


def _analytical_rows(inputs, output):
    diff_inputs = _diff_inputs(inputs)
    grad_out_base = torch.zeros_like(output)
    flat_grad_out = grad_out_base.view(-1)
    jacobians = [inp.new_zeros((inp.numel(), output.numel())) for inp in diff_inputs]
    sizes_ok = True
    types_ok = True
    for j in range(flat_grad_out.numel()):
        flat_grad_out.zero_()
        flat_grad_out[j] = 1.0
        grads = torch.autograd.grad(output, diff_inputs, grad_out_base, retain_graph=True,
                                    allow_unused=True)
        for i, d_x in enumerate(grads):
            if d_x is None:
                continue
            if d_x.size() != diff_inputs[i].size():
                sizes_ok = False
            elif d_x.dtype != diff_inputs[i].dtype:
                types_ok = False
            else:
                jacobians[i][:, j] = d_x.reshape(-1)
    return jacobians, sizes_ok, types_ok


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    jacobians1, sizes_ok, types_ok = _analytical_rows(inputs, output)
    jacobians2, _, _ = _analytical_rows(inputs, output)
    reentrant = all((a - b).abs().max() <= nondet_tol if a.numel() > 0 else True
                    for a, b in zip(jacobians1, jacobians2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError('Gradient has dtype mismatch')
    if not sizes_ok:
        raise GradcheckError('Analytical gradient has incorrect size')
    if not reentrant:
        raise GradcheckError('Backward is not reentrant, i.e., running backward with '
                             'same input and grad_output multiple times gives different values, '
                             'although analytical gradient matches numerical gradient.'
                             f'The tolerance for nondeterminism was {nondet_tol}.')
    return jacobians1


def _allclose_with_type_promotion(a, b, rtol, atol):
    # torch.promote_types(a.dtype, b.dtype): two 0-d tensors promote so.
    promoted = (torch.zeros((), dtype=a.dtype) + torch.zeros((), dtype=b.dtype)).dtype
    return torch.allclose(a.to(promoted), b.to(promoted), rtol, atol)


def _notallclose_msg(analytical, numerical, output_idx, input_idx):
    return 'Jacobian mismatch for output %d with respect to input %d,\n' \
        'numerical:%s\nanalytical:%s\n' % (output_idx, input_idx, numerical, analytical)


def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol):
    func_out = _as_tuple(func_out)
    if not outputs:
        for jacobians in _numerical_jacobian(func, tupled_inputs, func_out, eps):
            for jacobian in jacobians:
                if torch.ne(jacobian, 0).sum() > 0:
                    raise GradcheckError('Numerical gradient for function expected to be zero')
        return True
    numerical = _numerical_jacobian(func, tupled_inputs, func_out, eps)
    # Transposed: for each output, its Jacobian with respect to each input.
    numerical = [list(per_output) for per_output in zip(*numerical)]
    numerical = [nj for o, nj in zip([o for o in func_out if o.is_floating_point()], numerical)
                 if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(tupled_inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose_with_type_promotion(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j))
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    diff_input_list = _diff_inputs(inputs)
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = torch.autograd.grad(outputs, diff_input_list,
                                      [torch.zeros_like(o) for o in outputs],
                                      allow_unused=True)
    for gi, di in zip(grads_input, diff_input_list):
        if gi is None:
            continue
        if not gi.eq(0).all():
            raise GradcheckError('backward not multiplied by grad_output')
        if gi.dtype != di.dtype or gi.device != di.device:
            raise GradcheckError("grad is incorrect type")
        if gi.size() != di.size():
            raise GradcheckError('grad is incorrect size')
    return True


def _not_supported(name, value):
    if value:
        raise NotImplementedError("gradcheck: " + name + "=True is not supported by Chainrule yet")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_sparse_nnz=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False):
    assert check_forward_ad or check_backward_ad, \
        "Expected at least one of check_forward_ad or check_backward_ad to be True"
    _not_supported("check_sparse_nnz", check_sparse_nnz)
    _not_supported("check_batched_grad", check_batched_grad)
    _not_supported("check_batched_forward_grad", check_batched_forward_grad)
    _not_supported("check_forward_ad", check_forward_ad)
    _not_supported("fast_mode", fast_mode)
    try:
        tupled_inputs = _as_tuple(inputs)
        _check_inputs(tupled_inputs)
        func_out = func(*tupled_inputs)
        outputs = _differentiable_outputs(func_out)
        if check_backward_ad:
            _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol,
                            check_grad_dtypes, nondet_tol)
            _test_backward_mul_by_grad_output(outputs, tupled_inputs)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    assert check_fwd_over_rev or check_rev_over_rev, \
        "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
    _not_supported("gen_non_contig_grad_outputs", gen_non_contig_grad_outputs)
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        # Random grad_outputs of the outputs' shapes, drawn as PyTorch draws them.
        outputs = _as_tuple(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            torch.randn_like(x if x.is_floating_point() else x.double()).requires_grad_()
            for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = set(i for i, x in enumerate(tupled_inputs)
                                  if isinstance(x, torch.Tensor) and x.requires_grad)
    diff_grad_output_indices = set(i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad)

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_args_indices)
        grad_inputs = torch.autograd.grad(outputs, diff_input_args, grad_outputs,
                                          create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev)
