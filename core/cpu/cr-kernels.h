/* cr-kernels.h — forward computation on tensors, without autograd.
 *
 * The differentiable ops (ops/) are written on top of these; so are the backward
 * formulas (through the ops). Each function dispatches on the tensors' device
 * (today the CPU: loops and OpenBLAS; the CUDA backend plugs in later) and
 * returns a new tensor the caller owns, or NULL with a GError (RuntimeError with
 * PyTorch's text for shape/dtype mistakes).
 *
 * Inputs may be any strided views; outputs are contiguous. Binary ops broadcast
 * and follow cr_dtype_result_type(). Large loops run on the thread pool
 * (cr_parallel_for) when more than one thread is configured; reductions add
 * in fixed blocks, so their results do not depend on the thread count.
 *
 * A tensor on another device goes to that device's backend (cr-backend.h);
 * without one the kernel fails with a RuntimeError. */
#pragma once

#include "cr-tensor.h"
#include "cr-random.h"
#include "cr-unary-ops.h"
#include "cr-binary-ops.h"

G_BEGIN_DECLS

/* op(x) for the ops of cr-unary-ops.def, with the dtype rule of its row
 * (cr_unary_op_dtypes: exp of an integer tensor gives float32, as in PyTorch). */
CrTensor *cr_kernel_unary        (CrUnaryOp        op,
                                  const CrTensor  *x,
                                  GError         **error);
/* The same for a row with parameters: params holds CR_UNARY_MAX_PARAMS
 * numbers, P0.. of its expressions (cr_kernel_unary gives such a row zeros). */
CrTensor *cr_kernel_unary_p      (CrUnaryOp        op,
                                  const CrTensor  *x,
                                  const double    *params,
                                  GError         **error);

/* op(a, b) for the ops of cr-binary-ops.def, with the dtype rule of its row
 * (cr_binary_op_dtypes) over the operands' result type. */
CrTensor *cr_kernel_binary       (CrBinaryOp       op,
                                  const CrTensor  *a,
                                  const CrTensor  *b,
                                  GError         **error);
/* In place: out = op(a, b) where out may be a (or share a's storage).
 * broadcast(a, b) must have out's shape; the result is cast to out's dtype
 * (PyTorch's "result type Float can't be cast to the desired output type Long"
 * when a float result would go into an integer tensor). */
gboolean  cr_kernel_binary_into  (CrBinaryOp       op,
                                  CrTensor        *out,
                                  const CrTensor  *a,
                                  const CrTensor  *b,
                                  GError         **error);
/* a + alpha * b in one pass (SGD, accumulation). */
CrTensor *cr_kernel_add_scaled   (const CrTensor  *a,
                                  const CrTensor  *b,
                                  double           alpha,
                                  GError         **error);
gboolean  cr_kernel_add_scaled_into (CrTensor     *out,
                                  const CrTensor  *b,
                                  double           alpha,
                                  GError         **error);
/* clamp to [min, max]; has_min/has_max say which bounds apply. */
CrTensor *cr_kernel_clamp        (const CrTensor  *x,
                                  gboolean         has_min,
                                  double           min,
                                  gboolean         has_max,
                                  double           max,
                                  GError         **error);
/* cond ? a : b, broadcasting all three. */
CrTensor *cr_kernel_where        (const CrTensor  *cond,
                                  const CrTensor  *a,
                                  const CrTensor  *b,
                                  GError         **error);

/* Copy src into dst (dst's geometry; src broadcast to it; cast to dst's dtype). */
gboolean  cr_kernel_copy_into    (CrTensor        *dst,
                                  const CrTensor  *src,
                                  GError         **error);
gboolean  cr_kernel_fill         (CrTensor        *dst,
                                  double           value,
                                  GError         **error);
CrTensor *cr_kernel_cast         (const CrTensor  *x,
                                  CrDType          dtype,
                                  GError         **error);

/* Reductions over dims (n_dims == 0: over everything). Negative dims count from
 * the end; out of range is PyTorch's IndexError "Dimension out of range
 * (expected to be in range of [-2, 1], but got 2)". sum of bool/int gives int64. */
CrTensor *cr_kernel_sum          (const CrTensor  *x,
                                  const int       *dims,
                                  int              n_dims,
                                  gboolean         keepdim,
                                  GError         **error);
CrTensor *cr_kernel_mean         (const CrTensor  *x,
                                  const int       *dims,
                                  int              n_dims,
                                  gboolean         keepdim,
                                  GError         **error);
CrTensor *cr_kernel_prod         (const CrTensor  *x,
                                  const int       *dims,
                                  int              n_dims,
                                  gboolean         keepdim,
                                  GError         **error);
/* Sum x down to shape (the broadcast reduction of backward): dims that were
 * added or were 1 in shape are summed. */
CrTensor *cr_kernel_sum_to_shape (const CrTensor  *x,
                                  const gint64    *shape,
                                  int              ndim,
                                  GError         **error);
/* max/min over everything: a 0-d tensor. */
CrTensor *cr_kernel_max_all      (const CrTensor  *x,
                                  gboolean         is_min,
                                  GError         **error);
/* max/min along dim: values and int64 indices (both new refs). */
gboolean  cr_kernel_max_dim      (const CrTensor  *x,
                                  int              dim,
                                  gboolean         keepdim,
                                  gboolean         is_min,
                                  CrTensor       **out_values,
                                  CrTensor       **out_indices,
                                  GError         **error);
CrTensor *cr_kernel_argmax       (const CrTensor  *x,
                                  gboolean         has_dim,
                                  int              dim,
                                  gboolean         keepdim,
                                  gboolean         is_min,
                                  GError         **error);

/* Matrix products (float32/float64, OpenBLAS). Strided inputs that are a
 * transposed contiguous matrix go to BLAS with a transpose flag, no copy.
 * a (n, k) @ b (k, m) -> (n, m); shape errors use PyTorch's
 * "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)". */
CrTensor *cr_kernel_mm           (const CrTensor  *a,
                                  const CrTensor  *b,
                                  GError         **error);
/* bias (n, m, any strides) + a @ b as PyTorch's CPU addmm computes it: the
 * bias copied into the new result, then gemm with beta = 1. CPU float32 and
 * float64 only. */
CrTensor *cr_kernel_addmm        (const CrTensor  *bias,
                                  const CrTensor  *a,
                                  const CrTensor  *b,
                                  GError         **error);
/* a (B, n, k) @ b (B, k, m) -> (B, n, m). */
CrTensor *cr_kernel_bmm          (const CrTensor  *a,
                                  const CrTensor  *b,
                                  GError         **error);

/* softmax / log_softmax along dim, and their backward:
 * softmax:     grad_in = out * (grad - sum(grad * out, dim))
 * log_softmax: grad_in = grad - exp(out) * sum(grad, dim) */
CrTensor *cr_kernel_softmax      (const CrTensor  *x,
                                  int              dim,
                                  gboolean         log,
                                  GError         **error);
CrTensor *cr_kernel_softmax_backward (const CrTensor *grad,
                                  const CrTensor  *out,
                                  int              dim,
                                  gboolean         log,
                                  GError         **error);

/* Concatenate along dim (all same dtype after promotion, same other sizes). */
CrTensor *cr_kernel_cat          (CrTensor *const *tensors,
                                  guint            n,
                                  int              dim,
                                  GError         **error);

/* Gather by flat (row-major logical) positions of x: out has index's shape.
 * Out-of-range indices are PyTorch's IndexError "index 5 is out of bounds for
 * dimension 0 with size 3" (the caller may rewrite the message). */
CrTensor *cr_kernel_take         (const CrTensor  *x,
                                  const CrTensor  *flat_index,
                                  GError         **error);
/* dst[flat_index[i]] = values[i] (or += when accumulate); values broadcast to
 * index's shape. dst is written in place (any strides). */
gboolean  cr_kernel_put          (CrTensor        *dst,
                                  const CrTensor  *flat_index,
                                  const CrTensor  *values,
                                  gboolean         accumulate,
                                  GError         **error);
/* Flat positions where mask (bool) is true, as an int64 1-d tensor. */
CrTensor *cr_kernel_nonzero_flat (const CrTensor  *mask,
                                  GError         **error);

/* Is any / are all elements nonzero (for `if t:` and torch.all/any). */
gboolean  cr_kernel_any          (const CrTensor  *x);
gboolean  cr_kernel_all          (const CrTensor  *x);
/* torch.equal / allclose helpers. */
gboolean  cr_kernel_allclose     (const CrTensor  *a,
                                  const CrTensor  *b,
                                  double           rtol,
                                  double           atol,
                                  gboolean        *out_result,
                                  GError         **error);

/* The generator and PyTorch's samplers (cr-random.h); the three below make
 * a new CPU tensor and fill it as torch.randn / rand / randint do. */
/* Standard normal / uniform [0,1) / integers in [low, high). */
CrTensor *cr_kernel_randn        (CrGenerator     *gen,
                                  const gint64    *shape,
                                  int              ndim,
                                  CrDType          dtype,
                                  GError         **error);
CrTensor *cr_kernel_rand         (CrGenerator     *gen,
                                  const gint64    *shape,
                                  int              ndim,
                                  CrDType          dtype,
                                  GError         **error);
CrTensor *cr_kernel_randint      (CrGenerator     *gen,
                                  gint64           low,
                                  gint64           high,
                                  const gint64    *shape,
                                  int              ndim,
                                  GError         **error);

/* Threads for large elementwise loops and reductions: from OMP_NUM_THREADS (or
 * OPENBLAS_NUM_THREADS), default the number of cores; OpenBLAS gets the same. */
void      cr_threads_init        (void);
int       cr_threads_get         (void);
/* Overrides the thread count (tests, --threads); OpenBLAS follows. */
void      cr_threads_set         (int              n);
/* Run fn(begin, end, data) over [0, n) in chunks of at least grain, on the pool
 * when worth it, else inline. */
void      cr_parallel_for        (gint64           n,
                                  gint64           grain,
                                  void           (*fn) (gint64 begin, gint64 end, gpointer data),
                                  gpointer         data);

/* addcmul / addcdiv (divide) with PyTorch's CPU roundings (cr-cpu-pointwise.c):
 * out = self + value * t1 * t2 or self + value * t1 / t2. Only where
 * cr_kernel_addc_fits: one floating dtype, all on the CPU, out of the
 * broadcast shape and overlapping an input only by being it. */
gboolean  cr_kernel_addc_fits    (const CrTensor  *out,
                                  const CrTensor  *self,
                                  const CrTensor  *t1,
                                  const CrTensor  *t2);
void      cr_kernel_addc         (CrTensor        *out,
                                  const CrTensor  *self,
                                  const CrTensor  *t1,
                                  const CrTensor  *t2,
                                  double           value,
                                  gboolean         divide);

G_END_DECLS
