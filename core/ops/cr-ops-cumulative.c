/* cr-ops-cumulative.c — running sums and products along a dim: cumsum
 * (CumsumBackward0), cumprod (CumprodBackward0) and logcumsumexp
 * (LogcumsumexpBackward0).
 *
 * On the CPU a float running value is kept in double and each step written
 * back in the tensor's dtype, as PyTorch's cpu_cum_base_kernel does with its
 * acc_type (so [1e8, 1, -1e8].cumsum(0) ends in 1, not 0). On a device the
 * scan is one binary kernel per step along dim, slice k op= slice k - 1.
 * Backward formulas follow PyTorch 1.13's cumsum_backward and
 * cumprod_backward, written with differentiable ops. */
#include "cr-ops-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* ---- the scan --------------------------------------------------------------- */

/* PyTorch's _log_add_exp_helper: log(eˣ + eʸ), infinities of one sign kept. */
static inline double
log_add_exp (double x,
             double y)
{
  double lo = isnan (y) ? y : MIN (x, y);
  double hi = isnan (y) ? y : MAX (x, y);

  if (lo != hi || isfinite (lo))
    return log1p (exp (lo - hi)) + hi;
  return x;
}

/* x scanned with op (ADD, MUL or LOGADDEXP) along dim, into a fresh tensor
 * of dtype (x's when floating, int64 otherwise, as PyTorch promotes). No
 * graph. */
static CrTensor *
scan_along (CrTensor    *x,
            int          dim,
            CrBinaryOp   op,
            GError     **error)
{
  CrDType dtype = cr_dtype_is_floating (x->dtype) ? x->dtype : CR_DTYPE_INT64;
  gint64 outer, size, inner;
  CrTensor *out = cr_tensor_new_empty (x->shape, x->ndim, dtype, x->device, error);

  if (out == NULL)
    return NULL;
  if (!cr_kernel_copy_into (out, x, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  cr_ops_split_at_dim (x, dim, &outer, &size, &inner);

  if (out->device != CR_DEVICE_CPU)
    {
      for (gint64 k = 1; k < size; k++)
        {
          gint64 vshape[CR_MAX_DIMS];
          g_autoptr(CrTensor) row = NULL;
          g_autoptr(CrTensor) prev = NULL;

          memcpy (vshape, out->shape, sizeof (gint64) * out->ndim);
          vshape[dim] = 1;
          row = cr_tensor_new_view (out, vshape, out->ndim, out->strides,
                                    out->offset + k * out->strides[dim]);
          prev = cr_tensor_new_view (out, vshape, out->ndim, out->strides,
                                     out->offset + (k - 1) * out->strides[dim]);
          if (!cr_kernel_binary_into (op, row, row, prev, error))
            {
              cr_tensor_unref (out);
              return NULL;
            }
        }
      return out;
    }

#define SCAN_LOOP(type, acc_type)                                       \
  G_STMT_START {                                                        \
    type *p = cr_tensor_data (out);                                     \
    for (gint64 o = 0; o < outer; o++)                                  \
      for (gint64 j = 0; j < inner; j++)                                \
        {                                                               \
          type *first = p + o * size * inner + j;                       \
          acc_type acc = first[0];                                      \
          for (gint64 k = 1; k < size; k++)                             \
            {                                                           \
              if (op == CR_BINARY_MUL)                                  \
                acc *= first[k * inner];                                \
              else if (op == CR_BINARY_LOGADDEXP)                       \
                acc = (acc_type) log_add_exp ((double) first[k * inner],\
                                              (double) acc);            \
              else                                                      \
                acc += first[k * inner];                                \
              first[k * inner] = (type) acc;                            \
            }                                                           \
        }                                                               \
  } G_STMT_END
  if (dtype == CR_DTYPE_FLOAT32)
    SCAN_LOOP (float, double);
  else if (dtype == CR_DTYPE_FLOAT64)
    SCAN_LOOP (double, double);
  else
    SCAN_LOOP (gint64, gint64);
#undef SCAN_LOOP
  return out;
}

/* ---- cumsum ------------------------------------------------------------ */

/* The reversed cumulative sum along dim, x.flip(dim).cumsum(dim).flip(dim),
 * PyTorch's reversed_cumsum (a double backward goes through FlipBackward0
 * and CumsumBackward0). */
static CrTensor *
reversed_cumsum (CrTensor  *x,
                 int        dim,
                 GError   **error)
{
  g_autoptr(CrTensor) flipped = cr_flip (x, &dim, 1, error);
  g_autoptr(CrTensor) summed = flipped != NULL ? cr_cumsum (flipped, dim, error) : NULL;

  return summed != NULL ? cr_flip (summed, &dim, 1, error) : NULL;
}

/* PyTorch 1.13's cumsum_backward: grad itself when there is nothing to sum.
 * args.dims[0]: dim. */
static gboolean
cumsum_backward (CrNode          *node,
                 CrTensor *const *grads,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int dim = node->args->dims[0];

  if (grads[0]->numel <= 1 || meta->ndim == 0 || meta->shape[dim] == 1)
    SET_GRAD (0, cr_tensor_ref (grads[0]));
  else
    SET_GRAD (0, reversed_cumsum (grads[0], dim, error));
  return TRUE;
}

const CrOpInfo cr_op_row_CUMSUM = {
  CR_OP_CUMSUM, "cumsum", "CumsumBackward0", 1, "Σ…",
  "∂cumsum(x)ⱼ/∂xᵢ = [i ≤ j]",
  cumsum_backward, NULL
};

CrTensor *
cr_cumsum (CrTensor  *x,
           int        dim,
           GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error)
      || (out = scan_along (x, dim, CR_BINARY_ADD, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_CUMSUM, &x, 1, out)) != NULL)
    cr_node_args (node)->dims[0] = dim;
  return out;
}

/* ---- cumprod ----------------------------------------------------------- */

/* x[..., start:stop, ...] along dim (SliceBackward0 under create_graph). */
static CrTensor *
slice_dim (CrTensor  *x,
           int        dim,
           gint64     start,
           gint64     stop,
           GError   **error)
{
  CrIndexItem items[CR_MAX_DIMS];

  memset (items, 0, sizeof items);
  for (int d = 0; d <= dim; d++)
    items[d].kind = CR_INDEX_SLICE;
  items[dim].start = start;
  items[dim].stop = stop;
  items[dim].has_start = items[dim].has_stop = TRUE;
  return cr_index_get (x, items, dim + 1, error);
}

/* Does x hold a zero? (kernels only) */
static gboolean
has_zero (CrTensor  *x,
          gboolean  *out,
          GError   **error)
{
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (x);
  g_autoptr(CrTensor) is_zero = cr_kernel_binary (CR_BINARY_EQ, x, zero, error);

  if (is_zero == NULL)
    return FALSE;
  *out = cr_kernel_any (is_zero);
  return TRUE;
}

/* The gradient of input slice k when the input holds zeros, PyTorch's
 * O(n²) formula (the one it differentiates twice):
 * Σⱼ≥ₖ grad[j] · Πᵢ<ₖ x[i] · Πₖ<ᵢ≤ⱼ x[i], the product that leaves x[k] out. */
static CrTensor *
omitted_product_gradient (CrTensor  *x,
                          CrTensor  *grad,
                          int        dim,
                          gint64     k,
                          GError   **error)
{
  gint64 size = x->shape[dim];
  g_autoptr(CrTensor) omitted = NULL;
  g_autoptr(CrTensor) grad_tail = NULL;
  g_autoptr(CrTensor) weighted = NULL;

  if (k == 0)
    {
      gint64 ones_shape[CR_MAX_DIMS];
      g_autoptr(CrTensor) ones = NULL;
      g_autoptr(CrTensor) rest = slice_dim (x, dim, 1, size, error);
      g_autoptr(CrTensor) rest_prods = rest != NULL ? cr_cumprod (rest, dim, error) : NULL;

      if (rest_prods == NULL)
        return NULL;
      memcpy (ones_shape, x->shape, sizeof (gint64) * x->ndim);
      ones_shape[dim] = 1;
      ones = cr_tensor_new_empty (ones_shape, x->ndim, grad->dtype, grad->device, error);
      if (ones == NULL || !cr_kernel_fill (ones, 1.0, error))
        return NULL;
      omitted = cr_cat ((CrTensor *[]) { ones, rest_prods }, 2, dim, error);
    }
  else
    {
      g_autoptr(CrTensor) head = slice_dim (x, dim, 0, k, error);
      g_autoptr(CrTensor) until_k = head != NULL ? cr_prod_dim (head, dim, TRUE, error) : NULL;

      if (until_k == NULL)
        return NULL;
      if (k == size - 1)
        omitted = cr_tensor_ref (until_k);
      else
        {
          g_autoptr(CrTensor) rest = slice_dim (x, dim, k + 1, size, error);
          g_autoptr(CrTensor) rest_prods = rest != NULL ? cr_cumprod (rest, dim, error) : NULL;
          g_autoptr(CrTensor) until_k_wide = NULL;
          g_autoptr(CrTensor) products = NULL;

          if (rest_prods == NULL
              || (until_k_wide = cr_expand (until_k, rest_prods->shape, rest_prods->ndim,
                                            error)) == NULL
              || (products = cr_mul (until_k_wide, rest_prods, error)) == NULL)
            return NULL;
          omitted = cr_cat ((CrTensor *[]) { until_k, products }, 2, dim, error);
        }
    }
  if (omitted == NULL
      || (grad_tail = slice_dim (grad, dim, k, size, error)) == NULL
      || (weighted = cr_mul (grad_tail, omitted, error)) == NULL)
    return NULL;
  return cr_sum_dim (weighted, &dim, 1, FALSE, error);
}

/* PyTorch 1.13's cumprod_backward: grad itself when there is nothing to
 * multiply; without zeros reversed_cumsum(result · grad) / input; with zeros
 * each slice's own product that leaves it out. saved[0] input, saved[1]
 * result; args.dims[0]: dim. */
static gboolean
cumprod_backward (CrNode          *node,
                  CrTensor *const *grads,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int dim = node->args->dims[0];
  gboolean zeros = FALSE;
  SAVED (x, 0);
  SAVED (result, 1);

  if (x->numel <= 1 || meta->ndim == 0 || meta->shape[dim] == 1)
    {
      SET_GRAD (0, cr_tensor_ref (grads[0]));
      return TRUE;
    }
  if (!has_zero (x, &zeros, error))
    return FALSE;
  if (!zeros)
    {
      g_autoptr(CrTensor) w = cr_mul (result, grads[0], error);
      g_autoptr(CrTensor) summed = w != NULL ? reversed_cumsum (w, dim, error) : NULL;

      if (summed == NULL)
        return FALSE;
      SET_GRAD (0, cr_div (summed, x, error));
      return TRUE;
    }
  {
    /* Each slice copied into zeros, as PyTorch's select(dim, k).copy_()
     * (CopySlices under create_graph). */
    g_autoptr(CrTensor) grad_input = cr_ops_zeros_meta (&(CrTensorMeta) {
      x->shape, x->ndim, grads[0]->dtype, grads[0]->device }, error);
    CrIndexItem items[CR_MAX_DIMS];

    if (grad_input == NULL)
      return FALSE;
    memset (items, 0, sizeof items);
    for (int d = 0; d < dim; d++)
      items[d].kind = CR_INDEX_SLICE;
    items[dim].kind = CR_INDEX_INT;
    for (gint64 k = 0; k < x->shape[dim]; k++)
      {
        g_autoptr(CrTensor) slice = omitted_product_gradient (x, grads[0], dim, k, error);

        items[dim].value = k;
        if (slice == NULL || !cr_index_set (grad_input, items, dim + 1, slice, error))
          return FALSE;
      }
    SET_GRAD (0, g_steal_pointer (&grad_input));
  }
  return TRUE;
}

const CrOpInfo cr_op_row_CUMPROD = {
  CR_OP_CUMPROD, "cumprod", "CumprodBackward0", 1, "Π…",
  "∂cumprod(x)ⱼ/∂xᵢ = [i ≤ j] · Πₖ≤ⱼ,ₖ≠ᵢ xₖ",
  cumprod_backward, NULL
};

CrTensor *
cr_cumprod (CrTensor  *x,
            int        dim,
            GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error)
      || (out = scan_along (x, dim, CR_BINARY_MUL, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_CUMPROD, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

/* ---- logcumsumexp ------------------------------------------------------- */

/* PyTorch 1.13's logcumsumexp_backward, signs apart: with the positive and
 * the negative parts of grad in log space (the lowest finite number where a
 * part is empty), exp(reversed_logcumsumexp(log|grad| − result) + input) for
 * each, the first minus the second. saved[0] input, saved[1] result;
 * args.dims[0]: dim. */
static CrTensor *
signed_part (CrTensor  *grad,
             CrTensor  *x,
             CrTensor  *result,
             int        dim,
             gboolean   negative,
             GError   **error)
{
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grad);
  g_autoptr(CrTensor) lowest = cr_tensor_new_full (grad->shape, grad->ndim,
                                                   grad->dtype == CR_DTYPE_FLOAT64 ? -DBL_MAX : -FLT_MAX,
                                                   grad->dtype, grad->device, error);
  g_autoptr(CrTensor) mask = NULL;
  g_autoptr(CrTensor) magnitude = NULL;
  g_autoptr(CrTensor) log_magnitude = NULL;
  g_autoptr(CrTensor) log_part = NULL;
  g_autoptr(CrTensor) shifted = NULL;
  g_autoptr(CrTensor) flipped = NULL;
  g_autoptr(CrTensor) scanned = NULL;
  g_autoptr(CrTensor) reversed = NULL;
  g_autoptr(CrTensor) raised = NULL;

  if (lowest == NULL
      || (mask = cr_binary_nograd (negative ? CR_BINARY_LT : CR_BINARY_GT, grad, zero, error)) == NULL
      || (magnitude = negative ? cr_neg (grad, error) : cr_tensor_ref (grad)) == NULL
      || (log_magnitude = cr_log (magnitude, error)) == NULL
      || (log_part = cr_where (mask, log_magnitude, lowest, error)) == NULL
      || (shifted = cr_sub (log_part, result, error)) == NULL
      || (flipped = cr_flip (shifted, &dim, 1, error)) == NULL
      || (scanned = cr_logcumsumexp (flipped, dim, error)) == NULL
      || (reversed = cr_flip (scanned, &dim, 1, error)) == NULL
      || (raised = cr_add (reversed, x, error)) == NULL)
    return NULL;
  return cr_exp (raised, error);
}

static gboolean
logcumsumexp_backward (CrNode          *node,
                       CrTensor *const *grads,
                       CrTensor       **grad_inputs,
                       GError         **error)
{
  int dim = node->args->dims[0];
  g_autoptr(CrTensor) positive = NULL;
  g_autoptr(CrTensor) negative = NULL;
  SAVED (x, 0);
  SAVED (result, 1);

  if (grads[0]->ndim == 0 || grads[0]->numel == 0)
    {
      SET_GRAD (0, cr_tensor_ref (grads[0]));
      return TRUE;
    }
  if ((positive = signed_part (grads[0], x, result, dim, FALSE, error)) == NULL
      || (negative = signed_part (grads[0], x, result, dim, TRUE, error)) == NULL)
    return FALSE;
  SET_GRAD (0, cr_sub (positive, negative, error));
  return TRUE;
}

const CrOpInfo cr_op_row_LOGCUMSUMEXP = {
  CR_OP_LOGCUMSUMEXP, "logcumsumexp", "LogcumsumexpBackward0", 1, "log Σ exp…",
  "∂ logcumsumexp(x)ⱼ/∂xᵢ = [i ≤ j] · softmax(x₀..ⱼ)ᵢ",
  logcumsumexp_backward, NULL
};

CrTensor *
cr_logcumsumexp (CrTensor  *x,
                 int        dim,
                 GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"logcumsumexp_out_cpu\" not implemented for '%s'",
                   cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error)
      || (out = scan_along (x, dim, CR_BINARY_LOGADDEXP, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_LOGCUMSUMEXP, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}
