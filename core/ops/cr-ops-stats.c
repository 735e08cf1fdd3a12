/* cr-ops-stats.c — reductions with their own PyTorch nodes: var and std
 * (VarBackward0, StdBackward0), logsumexp and amax/amin (cumsum is in
 * cr-ops-cumulative.c).
 *
 * Forwards are computed with grad mode off from the existing ops (the
 * results are fresh tensors) and then recorded as one node, so the graph
 * shows PyTorch's single grad_fn. Backward formulas follow PyTorch 1.13's
 * var_backward, std_backward, logsumexp_backward and scale_grad_by_count,
 * written with differentiable ops so that a create_graph
 * backward records a graph too. */
#include "cr-ops-private.h"

#include <math.h>
#include <string.h>

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* Wraps dims for x (no dims: all of them), sorted ascending, into out. */
static gboolean
wrap_dims (const CrTensor *x,
           const int      *dims,
           int             n_dims,
           int            *out,
           int            *n_out,
           GError        **error)
{
  if (n_dims == 0)
    {
      for (int i = 0; i < x->ndim; i++)
        out[i] = i;
      *n_out = x->ndim;
      return TRUE;
    }
  for (int i = 0; i < n_dims; i++)
    {
      out[i] = dims[i];
      if (!cr_ops_wrap_dim (&out[i], x->ndim, error))
        return FALSE;
    }
  /* Insertion sort: at most CR_MAX_DIMS entries. */
  for (int i = 1; i < n_dims; i++)
    for (int j = i; j > 0 && out[j - 1] > out[j]; j--)
      {
        int t = out[j];
        out[j] = out[j - 1];
        out[j - 1] = t;
      }
  *n_out = x->ndim == 0 ? 0 : n_dims;
  return TRUE;
}

/* grad (reduced over args->dims) with those dims put back as size 1 when
 * they were dropped, so that it broadcasts against the input. */
static CrTensor *
restore_dims (CrTensor       *grad,
              const CrOpArgs *args,
              GError        **error)
{
  CrTensor *g = cr_tensor_ref (grad);

  if (args->keepdim)
    return g;
  for (int i = 0; i < args->n_dims; i++)
    {
      CrTensor *u = cr_unsqueeze (g, args->dims[i], error);
      cr_tensor_unref (g);
      if (u == NULL)
        return NULL;
      g = u;
    }
  return g;
}

static void
set_dims (CrNode     *node,
          const int  *dims,
          int         n_dims,
          gboolean    keepdim)
{
  CrOpArgs *args = cr_node_args (node);

  memcpy (args->dims, dims, sizeof (int) * n_dims);
  args->n_dims = n_dims;
  args->keepdim = keepdim;
}

static CrTensor *
times_number (CrTensor  *t,
              double     value,
              GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (value, FALSE);

  return cr_mul (t, n, error);
}

/* ---- var, std ---------------------------------------------------------- */

/* PyTorch's var_backward: (2 / (N - correction)) * grad * (x - mean). */
static CrTensor *
var_backward_of (CrTensor       *grad,
                 CrTensor       *x,
                 const CrOpArgs *args,
                 GError        **error)
{
  g_autoptr(CrTensor) g = restore_dims (grad, args, error);
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) centered = NULL;
  g_autoptr(CrTensor) scaled = NULL;
  double n = 1;

  if (g == NULL)
    return NULL;
  for (int i = 0; i < args->n_dims; i++)
    n *= (double) x->shape[args->dims[i]];
  mean = args->n_dims > 0 ? cr_mean_dim (x, args->dims, args->n_dims, TRUE, error)
                          : cr_mean (x, error);
  if (mean == NULL || (centered = cr_sub (x, mean, error)) == NULL)
    return NULL;
  scaled = times_number (g, 2.0 / (n - args->scalar[0]), error);
  if (scaled == NULL)
    return NULL;
  return cr_mul (scaled, centered, error);
}

static gboolean
var_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SAVED (x, 0);
  SET_GRAD (0, var_backward_of (grads[0], x, node->args, error));
  return TRUE;
}

/* std_backward: var_backward of grad / (2 std), zero where std is 0. */
static gboolean
std_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SAVED (x, 0);
  SAVED (result, 1);
  g_autoptr(CrTensor) twice = times_number (result, 2.0, error);
  g_autoptr(CrTensor) ratio = twice != NULL ? cr_div (grads[0], twice, error) : NULL;
  g_autoptr(CrTensor) zero = cr_ops_wrap_number (0.0, FALSE);
  g_autoptr(CrTensor) is_zero = NULL;
  g_autoptr(CrTensor) grad_var = NULL;

  if (ratio == NULL
      || (is_zero = cr_binary_nograd (CR_BINARY_EQ, result, zero, error)) == NULL
      || (grad_var = cr_masked_fill (ratio, is_zero, zero, error)) == NULL)
    return FALSE;
  SET_GRAD (0, var_backward_of (grad_var, x, node->args, error));
  return TRUE;
}

/* args.dims / n_dims (all dims when reducing everything) / keepdim;
 * args.scalar[0]: the correction (1 unbiased, 0 not, or correction=); the input in slot 0. */
const CrOpInfo cr_op_row_VAR = {
  CR_OP_VAR, "var", "VarBackward0", 1, "var",
  "∂var(x)/∂xᵢ = 2 (xᵢ − mean) / (N − correction)",
  var_backward, NULL
};

/* As VAR; the result in slot 1. */
const CrOpInfo cr_op_row_STD = {
  CR_OP_STD, "std", "StdBackward0", 1, "std",
  "∂std(x)/∂xᵢ = (xᵢ − mean) / ((N − correction) std)",
  std_backward, NULL
};

static CrTensor *
var_or_std (CrOpId     op,
            CrTensor  *x,
            const int *dims,
            int        n_dims,
            double     correction,
            gboolean   keepdim,
            GError   **error)
{
  int wrapped[CR_MAX_DIMS];
  int n_wrapped;
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) centered = NULL;
  g_autoptr(CrTensor) squares = NULL;
  g_autoptr(CrTensor) total = NULL;
  CrTensor *out = NULL;
  CrNode *node;
  gboolean was_enabled;
  double n = 1;

  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "std and var only support floating point and complex dtypes");
      return NULL;
    }
  if (!wrap_dims (x, dims, n_dims, wrapped, &n_wrapped, error))
    return NULL;
  for (int i = 0; i < n_wrapped; i++)
    n *= (double) x->shape[wrapped[i]];

  was_enabled = cr_grad_mode_set_enabled (FALSE);
  mean = cr_kernel_mean (x, wrapped, n_wrapped, TRUE, error);
  if (mean != NULL && (centered = cr_kernel_binary (CR_BINARY_SUB, x, mean, error)) != NULL
      && (squares = cr_kernel_binary (CR_BINARY_MUL, centered, centered, error)) != NULL
      && (total = cr_kernel_sum (squares, wrapped, n_wrapped, keepdim, error)) != NULL)
    {
      /* PyTorch divides by max(0, N - correction): a correction past N
       * gives inf, not a negative variance. */
      g_autoptr(CrTensor) denom = cr_ops_wrap_number (MAX (0.0, n - correction), FALSE);
      g_autoptr(CrTensor) var = cr_kernel_binary (CR_BINARY_DIV, total, denom, error);

      if (var != NULL)
        out = op == CR_OP_STD ? cr_kernel_unary (CR_UNARY_SQRT, var, error)
                              : g_steal_pointer (&var);
    }
  cr_grad_mode_set_enabled (was_enabled);
  if (out == NULL)
    return NULL;

  if ((node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      set_dims (node, wrapped, n_wrapped, keepdim);
      cr_node_args (node)->scalar[0] = correction;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_node_args (node)->ints[0] = n_dims > 0;  /* dims given: _saved_dim is not None */
      cr_node_save (node, 0, x, FALSE);
      if (op == CR_OP_STD)
        cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

CrTensor *
cr_var (CrTensor   *x,
        const int  *dims,
        int         n_dims,
        double      correction,
        gboolean    keepdim,
        GError    **error)
{
  return var_or_std (CR_OP_VAR, x, dims, n_dims, correction, keepdim, error);
}

CrTensor *
cr_std (CrTensor   *x,
        const int  *dims,
        int         n_dims,
        double      correction,
        gboolean    keepdim,
        GError    **error)
{
  return var_or_std (CR_OP_STD, x, dims, n_dims, correction, keepdim, error);
}

/* ---- amax, amin -------------------------------------------------------- */

CrTensor *
cr_ops_extremum_keepdim (const CrTensor *x,
                         const int      *dims,
                         int             n_dims,
                         gboolean        is_min,
                         GError        **error)
{
  CrTensor *cur = cr_tensor_ref ((CrTensor *) x);

  for (int i = n_dims - 1; i >= 0; i--)
    {
      CrTensor *values = NULL;
      CrTensor *indices = NULL;

      if (!cr_kernel_max_dim (cur, dims[i], TRUE, is_min, &values, &indices, error))
        {
          cr_tensor_unref (cur);
          return NULL;
        }
      cr_tensor_unref (indices);
      cr_tensor_unref (cur);
      cur = values;
    }
  return cur;
}

/* t reduced over dims of size 1 (a copy without those dims). */
static CrTensor *
drop_dims (const CrTensor *t,
           const int      *dims,
           int             n_dims,
           gboolean        keepdim,
           GError        **error)
{
  if (keepdim || n_dims == 0)
    return cr_tensor_ref ((CrTensor *) t);
  return cr_kernel_sum (t, dims, n_dims, FALSE, error);
}

/* PyTorch's scale_grad_by_count: the gradient shared evenly by the
 * elements equal to the result. */
static gboolean
extremum_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  const CrOpArgs *args = node->args;
  SAVED (x, 0);
  SAVED (result, 1);
  g_autoptr(CrTensor) g = restore_dims (grads[0], args, error);
  g_autoptr(CrTensor) r = restore_dims (result, args, error);
  g_autoptr(CrTensor) mask = NULL;
  g_autoptr(CrTensor) count = NULL;
  g_autoptr(CrTensor) share = NULL;
  g_autoptr(CrTensor) zero = cr_ops_wrap_number (0.0, FALSE);

  if (g == NULL || r == NULL
      || (mask = cr_binary_nograd (CR_BINARY_EQ, r, x, error)) == NULL
      || (count = cr_kernel_sum (mask, args->dims, args->n_dims, TRUE, error)) == NULL
      || (share = cr_div (g, count, error)) == NULL)
    return FALSE;
  SET_GRAD (0, cr_where (mask, share, zero, error));
  return TRUE;
}

/* args.dims / n_dims / keepdim; the input in slot 0, the result in slot 1. */
const CrOpInfo cr_op_row_AMAX = {
  CR_OP_AMAX, "amax", "AmaxBackward0", 1, "max",
  "∂amax(x)/∂xᵢ = [xᵢ = max] / #ties",
  extremum_backward, NULL
};

const CrOpInfo cr_op_row_AMIN = {
  CR_OP_AMIN, "amin", "AminBackward0", 1, "min",
  "∂amin(x)/∂xᵢ = [xᵢ = min] / #ties",
  extremum_backward, NULL
};

static CrTensor *
amax_or_amin (CrOpId     op,
              CrTensor  *x,
              const int *dims,
              int        n_dims,
              gboolean   keepdim,
              GError   **error)
{
  int wrapped[CR_MAX_DIMS];
  int n_wrapped;
  g_autoptr(CrTensor) kept = NULL;
  CrTensor *out;
  CrNode *node;

  if (!wrap_dims (x, dims, n_dims, wrapped, &n_wrapped, error))
    return NULL;
  if (x->numel == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           op == CR_OP_AMAX
                           ? "amax(): Expected reduction dim 0 to have non-zero size."
                           : "amin(): Expected reduction dim 0 to have non-zero size.");
      return NULL;
    }
  kept = cr_ops_extremum_keepdim (x, wrapped, n_wrapped, op == CR_OP_AMIN, error);
  if (kept == NULL || (out = drop_dims (kept, wrapped, n_wrapped, keepdim, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      set_dims (node, wrapped, n_wrapped, keepdim);
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

CrTensor *
cr_amax (CrTensor   *x,
         const int  *dims,
         int         n_dims,
         gboolean    keepdim,
         GError    **error)
{
  return amax_or_amin (CR_OP_AMAX, x, dims, n_dims, keepdim, error);
}

CrTensor *
cr_amin (CrTensor   *x,
         const int  *dims,
         int         n_dims,
         gboolean    keepdim,
         GError    **error)
{
  return amax_or_amin (CR_OP_AMIN, x, dims, n_dims, keepdim, error);
}

/* ---- logsumexp --------------------------------------------------------- */

/* grad * exp(x - result), with the reduced dims put back. */
static gboolean
logsumexp_backward (CrNode          *node,
                    CrTensor *const *grads,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  SAVED (x, 0);
  SAVED (result, 1);
  g_autoptr(CrTensor) g = restore_dims (grads[0], node->args, error);
  g_autoptr(CrTensor) r = restore_dims (result, node->args, error);
  g_autoptr(CrTensor) d = NULL;
  g_autoptr(CrTensor) e = NULL;

  if (g == NULL || r == NULL || (d = cr_sub (x, r, error)) == NULL
      || (e = cr_exp (d, error)) == NULL)
    return FALSE;
  SET_GRAD (0, cr_mul (g, e, error));
  return TRUE;
}

/* args.dims / n_dims / keepdim; the input in slot 0, the result in slot 1. */
const CrOpInfo cr_op_row_LOGSUMEXP = {
  CR_OP_LOGSUMEXP, "logsumexp", "LogsumexpBackward0", 1, "lse",
  "∂logsumexp(x)/∂xᵢ = exp(xᵢ − logsumexp(x))",
  logsumexp_backward, NULL
};

CrTensor *
cr_logsumexp (CrTensor   *x,
              const int  *dims,
              int         n_dims,
              gboolean    keepdim,
              GError    **error)
{
  int wrapped[CR_MAX_DIMS];
  int n_wrapped;
  g_autoptr(CrTensor) floating = NULL;
  g_autoptr(CrTensor) m = NULL;
  g_autoptr(CrTensor) shifted = NULL;
  g_autoptr(CrTensor) e = NULL;
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(CrTensor) l = NULL;
  g_autoptr(CrTensor) kept = NULL;
  CrTensor *out;
  CrNode *node;

  if (!wrap_dims (x, dims, n_dims, wrapped, &n_wrapped, error))
    return NULL;
  floating = cr_dtype_is_floating (x->dtype) ? cr_tensor_ref (x)
                                             : cr_kernel_cast (x, CR_DTYPE_FLOAT32, error);
  if (floating == NULL)
    return NULL;
  /* The max is taken out first for range; an infinite max is replaced by 0
   * (as PyTorch does) so that inf - inf gives no nan. */
  m = x->numel > 0 ? cr_ops_extremum_keepdim (floating, wrapped, n_wrapped, FALSE, error)
                   : cr_kernel_sum (floating, wrapped, n_wrapped, TRUE, error);
  if (m == NULL)
    return NULL;
  {
    g_autoptr(CrTensor) inf = cr_ops_wrap_number (INFINITY, FALSE);
    g_autoptr(CrTensor) zero = cr_ops_wrap_number (0.0, FALSE);
    g_autoptr(CrTensor) a = cr_kernel_unary (CR_UNARY_ABS, m, error);
    g_autoptr(CrTensor) is_inf = a ? cr_kernel_binary (CR_BINARY_EQ, a, inf, error) : NULL;
    CrTensor *fixed = is_inf ? cr_kernel_where (is_inf, zero, m, error) : NULL;

    if (fixed == NULL)
      return NULL;
    cr_tensor_unref (m);
    m = fixed;
  }
  if ((shifted = cr_kernel_binary (CR_BINARY_SUB, floating, m, error)) == NULL
      || (e = cr_kernel_unary (CR_UNARY_EXP, shifted, error)) == NULL
      || (s = cr_kernel_sum (e, wrapped, n_wrapped, TRUE, error)) == NULL
      || (l = cr_kernel_unary (CR_UNARY_LOG, s, error)) == NULL
      || (kept = cr_kernel_binary (CR_BINARY_ADD, l, m, error)) == NULL
      || (out = drop_dims (kept, wrapped, n_wrapped, keepdim, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_LOGSUMEXP, &x, 1, out)) != NULL)
    {
      set_dims (node, wrapped, n_wrapped, keepdim);
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}
