/* cr-ops-reduce.c — differentiable reductions: sum, mean, prod, max/min,
 * norm, and sum_to_shape (the broadcast reduction that gradients go through).
 *
 * Backward formulas follow PyTorch 1.13 (sum_backward, mean_backward,
 * prod_backward, evenly_distribute_backward, value_selecting_reduction_backward,
 * norm_backward) and use differentiable ops (unsqueeze, expand, where), so a
 * create_graph backward through them records a graph too. */
#include "cr-ops-private.h"

#include <math.h>
#include <string.h>

#include "cr-error.h"
#include "cr-tensor.h"

#define SAVED(var, slot)                                               \
  g_autoptr(CrTensor) var = cr_node_get_saved (node, (slot), error);   \
  if (var == NULL)                                                     \
    return FALSE

#define SET_GRAD(i, expr)                                              \
  G_STMT_START {                                                       \
    grad_inputs[(i)] = (expr);                                         \
    if (grad_inputs[(i)] == NULL)                                      \
      return FALSE;                                                    \
  } G_STMT_END

/* Dims as the kernel accepted them, made non-negative (a 0-d tensor takes 0
 * and -1, as PyTorch's maybe_wrap_dim). */
static void
normalize_dims (const CrTensor *x,
                const int      *dims,
                int             n_dims,
                int            *out)
{
  int n = MAX (x->ndim, 1);

  for (int i = 0; i < n_dims; i++)
    out[i] = dims[i] < 0 ? dims[i] + n : dims[i];
}

static int
compare_ints (gconstpointer a,
              gconstpointer b)
{
  return *(const int *) a - *(const int *) b;
}

/* PyTorch's sum_backward: unsqueeze the reduced dims back (unless keepdim)
 * and expand to the input's shape. */
static CrTensor *
sum_backward_expand (CrTensor           *grad,
                     const CrTensorMeta *meta,
                     const int          *dims,
                     int                 n_dims,
                     gboolean            keepdim,
                     GError            **error)
{
  g_autoptr(CrTensor) g = cr_tensor_ref (grad);

  if (!keepdim && meta->ndim > 0 && n_dims > 0)
    {
      int sorted[CR_MAX_DIMS];

      memcpy (sorted, dims, sizeof (int) * n_dims);
      qsort (sorted, n_dims, sizeof (int), compare_ints);
      for (int i = 0; i < n_dims; i++)
        {
          CrTensor *u = cr_unsqueeze (g, sorted[i], error);

          if (u == NULL)
            return NULL;
          cr_tensor_unref (g);
          g = u;
        }
    }
  return cr_expand (g, meta->shape, meta->ndim, error);
}

static gint64
reduced_count (const CrTensorMeta *meta,
               const int          *dims,
               int                 n_dims)
{
  gint64 n = 1;

  if (n_dims == 0 || meta->ndim == 0)
    return cr_shape_numel (meta->shape, meta->ndim);
  for (int i = 0; i < n_dims; i++)
    n *= meta->shape[dims[i]];
  return n;
}

/* ---- sum --------------------------------------------------------------- */

static gboolean
sum_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SET_GRAD (0, cr_expand (grads[0], node->input_meta[0].shape, node->input_meta[0].ndim, error));
  return TRUE;
}

const CrOpInfo cr_op_row_SUM = {
  CR_OP_SUM, "sum", "SumBackward0", 1, "Σ",
  "∂(Σᵢ xᵢ)/∂xᵢ = 1",
  sum_backward, NULL
};

CrTensor *
cr_sum (CrTensor  *x,
        GError   **error)
{
  CrTensor *out = cr_kernel_sum (x, NULL, 0, FALSE, error);

  if (out != NULL)
    cr_ops_record (CR_OP_SUM, &x, 1, out);
  return out;
}

static gboolean
sum_dim_backward (CrNode          *node,
                  CrTensor *const *grads,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  SET_GRAD (0, sum_backward_expand (grads[0], &node->input_meta[0], node->args.dims,
                                    node->args.n_dims, node->args.keepdim, error));
  return TRUE;
}

/* args.dims / n_dims: the reduced dims (non-negative); args.keepdim. */
const CrOpInfo cr_op_row_SUM_DIM = {
  CR_OP_SUM_DIM, "sum", "SumBackward1", 1, "Σ",
  "∂(Σ_dim x)/∂xᵢ = 1",
  sum_dim_backward, NULL
};

CrTensor *
cr_sum_dim (CrTensor   *x,
            const int  *dims,
            int         n_dims,
            gboolean    keepdim,
            GError    **error)
{
  CrTensor *out = cr_kernel_sum (x, dims, n_dims, keepdim, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_SUM_DIM, &x, 1, out)) != NULL)
    {
      normalize_dims (x, dims, n_dims, node->args.dims);
      node->args.n_dims = n_dims;
      node->args.keepdim = keepdim;
    }
  return out;
}

/* ---- mean -------------------------------------------------------------- */

static CrTensor *
divide_by_count (CrTensor  *t,
                 gint64     count,
                 GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number ((double) count, TRUE);

  return cr_div (t, n, error);
}

static gboolean
mean_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  g_autoptr(CrTensor) e = cr_expand (grads[0], meta->shape, meta->ndim, error);

  SET_GRAD (0, e != NULL ? divide_by_count (e, cr_shape_numel (meta->shape, meta->ndim), error)
                         : NULL);
  return TRUE;
}

const CrOpInfo cr_op_row_MEAN = {
  CR_OP_MEAN, "mean", "MeanBackward0", 1, "mean",
  "∂(mean x)/∂xᵢ = 1/n",
  mean_backward, NULL
};

CrTensor *
cr_mean (CrTensor  *x,
         GError   **error)
{
  CrTensor *out = cr_kernel_mean (x, NULL, 0, FALSE, error);

  if (out != NULL)
    cr_ops_record (CR_OP_MEAN, &x, 1, out);
  return out;
}

static gboolean
mean_dim_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  const CrOpArgs *args = &node->args;
  /* PyTorch keeps the input for its sizes; a second backward fails like it. */
  SAVED (x, 0);
  g_autoptr(CrTensor) e = sum_backward_expand (grads[0], meta, args->dims, args->n_dims,
                                               args->keepdim, error);

  SET_GRAD (0, e != NULL ? divide_by_count (e, reduced_count (meta, args->dims, args->n_dims),
                                            error) : NULL);
  return TRUE;
}

/* args.dims / n_dims / keepdim as SUM_DIM; the input in slot 0. */
const CrOpInfo cr_op_row_MEAN_DIM = {
  CR_OP_MEAN_DIM, "mean", "MeanBackward1", 1, "mean",
  "∂(mean_dim x)/∂xᵢ = 1/n,  n = the size of the reduced dims",
  mean_dim_backward, NULL
};

CrTensor *
cr_mean_dim (CrTensor   *x,
             const int  *dims,
             int         n_dims,
             gboolean    keepdim,
             GError    **error)
{
  CrTensor *out = cr_kernel_mean (x, dims, n_dims, keepdim, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_MEAN_DIM, &x, 1, out)) != NULL)
    {
      normalize_dims (x, dims, n_dims, node->args.dims);
      node->args.n_dims = n_dims;
      node->args.keepdim = keepdim;
      cr_node_save (node, 0, x, FALSE);
    }
  return out;
}

/* ---- prod -------------------------------------------------------------- */

/* For each element, the product of all the others (prefix times suffix
 * products): PyTorch's prod_safe_zeros_backward, for inputs with zeros. */
static CrTensor *
product_of_others (const CrTensor  *x,
                   GError         **error)
{
  gint64 n = x->numel;
  g_autofree double *values = g_new (double, MAX (n, 1));
  g_autofree double *prefix = g_new (double, MAX (n, 1));
  CrTensor *out;
  double suffix = 1.0;

  for (gint64 i = 0; i < n; i++)
    values[i] = cr_tensor_get_flat (x, i);
  for (gint64 i = 0; i < n; i++)
    prefix[i] = i == 0 ? 1.0 : prefix[i - 1] * values[i - 1];
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, x->device, error);
  if (out == NULL)
    return NULL;
  for (gint64 i = n - 1; i >= 0; i--)
    {
      cr_tensor_set_flat (out, i, prefix[i] * suffix);
      suffix *= values[i];
    }
  return out;
}

static gboolean
prod_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  SAVED (x, 0);
  g_autoptr(CrTensor) zeros = NULL;
  g_autoptr(CrTensor) n_zeros = NULL;

  if (x->ndim == 0)
    {
      grad_inputs[0] = cr_tensor_ref (grads[0]);
      return TRUE;
    }
  zeros = cr_kernel_binary (CR_BINARY_EQ, x, cr_ops_zero_scalar_like (x) /* see below */, error);
  return FALSE;
}

const CrOpInfo cr_op_row_PROD = {
  CR_OP_PROD, "prod", "ProdBackward0", 1, "Π",
  "∂(Πⱼ xⱼ)/∂xᵢ = Πⱼ≠ᵢ xⱼ",
  prod_backward, NULL
};
