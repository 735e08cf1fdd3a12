/* cr-ops-reduce.c — differentiable reductions: sum, mean, prod, max/min,
 * norm, and sum_to_shape (the broadcast reduction that gradients go through).
 *
 * Backward formulas follow PyTorch 1.13 (sum_backward, mean_backward,
 * prod_backward, evenly_distribute_backward, value_selecting_reduction_backward,
 * norm_backward) and use differentiable ops (unsqueeze, expand, where), so a
 * create_graph backward through them records a graph too. */
#include "cr-ops-private.h"
#include "cr-cuda.h"

#include <math.h>
#include <string.h>

#include "cr-error.h"
#include "cr-tensor.h"

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

/* cr_ops_record of op over x with the dims it reduced (made non-negative)
 * and keepdim in the node's args: the node (borrowed) or NULL. */
static CrNode *
record_over_dims (CrOpId      op,
                  CrTensor   *x,
                  const int  *dims,
                  int         n_dims,
                  gboolean    keepdim,
                  CrTensor   *out)
{
  CrNode *node = cr_ops_record (op, &x, 1, out);

  if (node != NULL)
    {
      normalize_dims (x, dims, n_dims, cr_node_args (node)->dims);
      cr_node_args (node)->n_dims = n_dims;
      cr_node_args (node)->keepdim = keepdim;
    }
  return node;
}

static int
compare_ints (gconstpointer a,
              gconstpointer b)
{
  return *(const int *) a - *(const int *) b;
}

/* PyTorch's unsqueeze_multiple: the reduced dims back as size 1 (unless
 * keepdim kept them). */
static CrTensor *
unsqueeze_reduced (CrTensor           *grad,
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
  return g_steal_pointer (&g);
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
  g_autoptr(CrTensor) g = unsqueeze_reduced (grad, meta, dims, n_dims, keepdim, error);

  return g != NULL ? cr_expand (g, meta->shape, meta->ndim, error) : NULL;
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
  SET_GRAD (0, sum_backward_expand (grads[0], &node->input_meta[0], node->args->dims,
                                    node->args->n_dims, node->args->keepdim, error));
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

  if (out != NULL)
    record_over_dims (CR_OP_SUM_DIM, x, dims, n_dims, keepdim, out);
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
  const CrOpArgs *args = node->args;
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

  if (out != NULL && (node = record_over_dims (CR_OP_MEAN_DIM, x, dims, n_dims, keepdim, out)) != NULL)
    cr_node_save (node, 0, x, FALSE);
  return out;
}

/* ---- prod -------------------------------------------------------------- */

/* For each element, the product of the others in its slice along dim (all
 * elements when dim is -1), as prefix times suffix products: PyTorch's
 * prod_safe_zeros_backward, for inputs with zeros. */
static CrTensor *
product_of_others (const CrTensor  *x,
                   int              dim,
                   GError         **error)
{
  gint64 n = dim < 0 ? x->numel : x->shape[dim], inner = 1, outer = 1;
  g_autofree double *values = g_new (double, MAX (n, 1));
  g_autofree double *prefix = g_new (double, MAX (n, 1));
  CrTensor *out;

  if (x->device != CR_DEVICE_CPU)
    {
      /* A sequential scan: done on the host (two synchronizing copies); only
       * prod's backward of an input holding zeros comes here. */
      g_autoptr(CrTensor) host = cr_tensor_to_device (x, CR_DEVICE_CPU, error);
      g_autoptr(CrTensor) others = host != NULL ? product_of_others (host, dim, error) : NULL;

      return others != NULL ? cr_tensor_to_device (others, x->device, error) : NULL;
    }
  for (int d = 0; dim >= 0 && d < x->ndim; d++)
    {
      if (d < dim)
        outer *= x->shape[d];
      else if (d > dim)
        inner *= x->shape[d];
    }
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, x->device, error);
  if (out == NULL)
    return NULL;
  for (gint64 o = 0; o < outer; o++)
    for (gint64 i = 0; i < inner; i++)
      {
        double suffix = 1.0;

        for (gint64 k = 0; k < n; k++)
          values[k] = cr_tensor_get_flat (x, (o * n + k) * inner + i);
        for (gint64 k = 0; k < n; k++)
          prefix[k] = k == 0 ? 1.0 : prefix[k - 1] * values[k - 1];
        for (gint64 k = n - 1; k >= 0; k--)
          {
            cr_tensor_set_flat (out, (o * n + k) * inner + i, prefix[k] * suffix);
            suffix *= values[k];
          }
      }
  return out;
}

static gint64
count_zeros (const CrTensor  *x,
             GError         **error)
{
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (x);
  g_autoptr(CrTensor) is_zero = cr_kernel_binary (CR_BINARY_EQ, x, zero, error);
  g_autoptr(CrTensor) count = is_zero != NULL ? cr_kernel_sum (is_zero, NULL, 0, FALSE, error)
                                              : NULL;

  return count != NULL ? cr_tensor_read_flat_int (count, 0) : -1;
}

static gboolean
prod_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  SAVED (x, 0);
  gint64 n_zeros;

  if (x->ndim == 0)
    {
      grad_inputs[0] = cr_tensor_ref (grads[0]);
      return TRUE;
    }
  n_zeros = count_zeros (x, error);
  if (n_zeros < 0)
    return FALSE;
  if (n_zeros == 0)
    {
      /* grad * (out / x) */
      SAVED (out, 1);
      g_autoptr(CrTensor) q = cr_div (out, x, error);

      SET_GRAD (0, q != NULL ? cr_mul (grads[0], q, error) : NULL);
    }
  else
    {
      /* With zeros, out / x is undefined: multiply the products of the others
       * (not differentiated further, unlike PyTorch's cumprod formulation). */
      g_autoptr(CrTensor) others = product_of_others (x, -1, error);

      SET_GRAD (0, others != NULL ? cr_mul (grads[0], others, error) : NULL);
    }
  return TRUE;
}

/* The input in slot 0, the output in slot 1. */
const CrOpInfo cr_op_row_PROD = {
  CR_OP_PROD, "prod", "ProdBackward0", 1, "Π",
  "∂(Πⱼ xⱼ)/∂xᵢ = Πⱼ≠ᵢ xⱼ",
  prod_backward, NULL
};

CrTensor *
cr_prod (CrTensor  *x,
         GError   **error)
{
  CrTensor *out = cr_kernel_prod (x, NULL, 0, FALSE, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_PROD, &x, 1, out)) != NULL)
    {
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

/* PROD_DIM: the input in slot 0, the output in slot 1; args.dims[0] the
 * dim, args.keepdim. PyTorch's prod_backward: grad * result / x, or the
 * products of the others in the slice when x holds a zero. */
static gboolean
prod_dim_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  int dim = node->args->dims[0];
  SAVED (x, 0);
  SAVED (out, 1);
  g_autoptr(CrTensor) grad = NULL;
  g_autoptr(CrTensor) result = NULL;
  gint64 n_zeros;

  if (x->ndim == 0)
    {
      grad_inputs[0] = cr_tensor_ref (grads[0]);
      return TRUE;
    }
  if (!node->args->keepdim && x->ndim != 1)
    {
      grad = cr_unsqueeze (grads[0], dim, error);
      result = grad != NULL ? cr_unsqueeze (out, dim, error) : NULL;
      if (result == NULL)
        return FALSE;
    }
  else
    {
      grad = cr_tensor_ref (grads[0]);
      result = cr_tensor_ref (out);
    }
  n_zeros = count_zeros (x, error);
  if (n_zeros < 0)
    return FALSE;
  if (n_zeros == 0)
    {
      g_autoptr(CrTensor) q = cr_div (result, x, error);

      SET_GRAD (0, q != NULL ? cr_mul (grad, q, error) : NULL);
    }
  else
    {
      /* As for prod(): the products of the others are not differentiated
       * further (PyTorch's cumprod formulation is). */
      g_autoptr(CrTensor) others = product_of_others (x, dim, error);

      SET_GRAD (0, others != NULL ? cr_mul (grad, others, error) : NULL);
    }
  return TRUE;
}

const CrOpInfo cr_op_row_PROD_DIM = {
  CR_OP_PROD_DIM, "prod", "ProdBackward1", 1, "Π",
  "∂(Πⱼ xⱼ)/∂xᵢ = Πⱼ≠ᵢ xⱼ along dim",
  prod_dim_backward, NULL
};

CrTensor *
cr_prod_dim (CrTensor  *x,
             int        dim,
             gboolean   keepdim,
             GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  out = cr_kernel_prod (x, x->ndim > 0 ? &dim : NULL, x->ndim > 0 ? 1 : 0, keepdim, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_PROD_DIM, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      cr_node_args (node)->keepdim = keepdim;
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

/* ---- max, min ---------------------------------------------------------- */

/* PyTorch's evenly_distribute_backward: the gradient is shared by the
 * elements equal to the result, or by the NaNs when the result is NaN. */
gboolean
cr_ops_evenly_distribute_backward (CrNode          *node,
                                   CrTensor *const *grads,
                                   CrTensor       **grad_inputs,
                                   GError         **error)
{
  SAVED (x, 0);
  SAVED (out, 1);
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);
  g_autoptr(CrTensor) equal = cr_kernel_binary (CR_BINARY_EQ, x, out, error);
  g_autoptr(CrTensor) x_nan = equal != NULL ? cr_kernel_binary (CR_BINARY_NE, x, x, error) : NULL;
  g_autoptr(CrTensor) out_nan = x_nan != NULL ? cr_kernel_binary (CR_BINARY_NE, out, out, error)
                                              : NULL;
  g_autoptr(CrTensor) both_nan = out_nan != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND, x_nan,
                                                                     out_nan, error)
                                                 : NULL;
  g_autoptr(CrTensor) mask = both_nan != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_OR, equal,
                                                                  both_nan, error)
                                              : NULL;
  g_autoptr(CrTensor) count = mask != NULL ? cr_kernel_sum (mask, NULL, 0, FALSE, error) : NULL;
  g_autoptr(CrTensor) share = count != NULL ? cr_div (grads[0], count, error) : NULL;

  SET_GRAD (0, share != NULL ? cr_where (mask, share, zero, error) : NULL);
  return TRUE;
}

/* The input in slot 0, the output in slot 1. */
const CrOpInfo cr_op_row_MAX_ALL = {
  CR_OP_MAX_ALL, "max", "MaxBackward1", 1, "max",
  "∂max(x)/∂xᵢ = 1/k at each of the k maxima, else 0",
  cr_ops_evenly_distribute_backward, NULL
};

const CrOpInfo cr_op_row_MIN_ALL = {
  CR_OP_MIN_ALL, "min", "MinBackward1", 1, "min",
  "∂min(x)/∂xᵢ = 1/k at each of the k minima, else 0",
  cr_ops_evenly_distribute_backward, NULL
};

static CrTensor *
extremum_all (CrTensor  *x,
              gboolean   is_min,
              GError   **error)
{
  CrTensor *out = cr_kernel_max_all (x, is_min, error);
  CrNode *node;

  if (out != NULL
      && (node = cr_ops_record (is_min ? CR_OP_MIN_ALL : CR_OP_MAX_ALL, &x, 1, out)) != NULL)
    {
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

CrTensor *
cr_max_all (CrTensor  *x,
            GError   **error)
{
  return extremum_all (x, FALSE, error);
}

CrTensor *
cr_min_all (CrTensor  *x,
            GError   **error)
{
  return extremum_all (x, TRUE, error);
}

/* PyTorch's value_selecting_reduction_backward: the gradient scattered into
 * zeros at the selected element of each slice (ScatterBackward0 under
 * create_graph, as PyTorch's). */
gboolean
cr_ops_value_selecting_backward (CrNode          *node,
                                 CrTensor *const *grads,
                                 CrTensor       **grad_inputs,
                                 GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int dim = node->args->dims[0];
  SAVED (indices, 0);
  g_autoptr(CrTensor) zeros = cr_ops_zeros_meta (meta, error);
  g_autoptr(CrTensor) index = NULL;
  g_autoptr(CrTensor) grad = NULL;

  if (zeros == NULL)
    return FALSE;
  if (!node->args->keepdim && meta->ndim > 0)
    {
      index = cr_unsqueeze (indices, dim, error);
      grad = index != NULL ? cr_unsqueeze (grads[0], dim, error) : NULL;
      if (grad == NULL)
        return FALSE;
    }
  else
    {
      index = cr_tensor_ref (indices);
      grad = cr_tensor_ref (grads[0]);
    }
  SET_GRAD (0, cr_scatter_full (zeros, dim, index, grad, 0, FALSE, FALSE, error));
  return TRUE;
}

/* args.dims[0]: the dim; args.keepdim; the indices in slot 0. */
const CrOpInfo cr_op_row_MAX_DIM = {
  CR_OP_MAX_DIM, "max", "MaxBackward0", 1, "max",
  "∂max_dim(x)/∂xᵢ = 1 at the argmax of each slice, else 0",
  cr_ops_value_selecting_backward, NULL
};

const CrOpInfo cr_op_row_MIN_DIM = {
  CR_OP_MIN_DIM, "min", "MinBackward0", 1, "min",
  "∂min_dim(x)/∂xᵢ = 1 at the argmin of each slice, else 0",
  cr_ops_value_selecting_backward, NULL
};

static CrTensor *
extremum_dim (CrTensor   *x,
              int         dim,
              gboolean    keepdim,
              gboolean    is_min,
              CrTensor  **out_indices,
              GError    **error)
{
  CrTensor *values = NULL;
  CrTensor *indices = NULL;
  CrNode *node;

  if (!cr_kernel_max_dim (x, dim, keepdim, is_min, &values, &indices, error))
    return NULL;
  node = record_over_dims (is_min ? CR_OP_MIN_DIM : CR_OP_MAX_DIM, x, &dim, 1, keepdim, values);
  if (node != NULL)
    cr_node_save (node, 0, indices, FALSE);
  if (out_indices != NULL)
    *out_indices = indices;
  else
    cr_tensor_unref (indices);
  return values;
}

CrTensor *
cr_max_dim (CrTensor   *x,
            int         dim,
            gboolean    keepdim,
            CrTensor  **out_indices,
            GError    **error)
{
  return extremum_dim (x, dim, keepdim, FALSE, out_indices, error);
}

CrTensor *
cr_min_dim (CrTensor   *x,
            int         dim,
            gboolean    keepdim,
            CrTensor  **out_indices,
            GError    **error)
{
  return extremum_dim (x, dim, keepdim, TRUE, out_indices, error);
}

/* ---- norm -------------------------------------------------------------- */

/* The p-norm over every element, computed with kernels (no graph). */
static CrTensor *
norm_forward (const CrTensor  *x,
              double           p,
              const int       *dims,
              int              n_dims,
              gboolean         keepdim,
              GError         **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) s = NULL;

  if (p == 2.0)
    {
      g_autoptr(CrTensor) sq = cr_kernel_binary (CR_BINARY_MUL, x, x, error);

      s = sq != NULL ? cr_kernel_sum (sq, dims, n_dims, keepdim, error) : NULL;
      return s != NULL ? cr_kernel_unary (CR_UNARY_SQRT, s, error) : NULL;
    }
  if (p == 0.0)
    {
      g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (x);
      g_autoptr(CrTensor) nz = cr_kernel_binary (CR_BINARY_NE, x, zero, error);

      s = nz != NULL ? cr_kernel_sum (nz, dims, n_dims, keepdim, error) : NULL;
      return s != NULL ? cr_kernel_cast (s, x->dtype, error) : NULL;
    }
  a = cr_kernel_unary (CR_UNARY_ABS, x, error);
  if (a == NULL)
    return NULL;
  if (p == 1.0)
    return cr_kernel_sum (a, dims, n_dims, keepdim, error);
  if (isinf (p) && n_dims == 0)
    return cr_kernel_max_all (a, p < 0, error);
  if (isinf (p))
    {
      g_autoptr(CrTensor) kept = cr_ops_extremum_keepdim (a, dims, n_dims, p < 0, error);

      if (kept == NULL || keepdim)
        return g_steal_pointer (&kept);
      return cr_kernel_sum (kept, dims, n_dims, FALSE, error);
    }
  {
    g_autoptr(CrTensor) pe = cr_ops_wrap_number (p, FALSE);
    g_autoptr(CrTensor) ie = cr_ops_wrap_number (1.0 / p, FALSE);
    g_autoptr(CrTensor) ap = cr_kernel_binary (CR_BINARY_POW, a, pe, error);

    s = ap != NULL ? cr_kernel_sum (ap, dims, n_dims, keepdim, error) : NULL;
    return s != NULL ? cr_kernel_binary (CR_BINARY_POW, s, ie, error) : NULL;
  }
}

/* PyTorch's norm_backward for a full reduction (grad and norm are 0-d). */
static gboolean
norm_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  double p = node->args->scalar[0];
  const CrOpArgs *args = node->args;
  SAVED (x, 0);
  SAVED (saved_norm, 1);
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);
  g_autoptr(CrTensor) grad = NULL;
  g_autoptr(CrTensor) norm = NULL;

  /* Along dims, grad and norm get the reduced dims back (size 1 or
   * expanded), so the full-reduction formulas below broadcast. */
  if (args->n_dims > 0)
    {
      grad = sum_backward_expand (grads[0], &node->input_meta[0], args->dims, args->n_dims,
                                  args->keepdim, error);
      norm = grad != NULL ? sum_backward_expand (saved_norm, &node->input_meta[0], args->dims,
                                                 args->n_dims, args->keepdim, error) : NULL;
      if (norm == NULL)
        return FALSE;
    }
  else
    {
      grad = cr_tensor_ref (grads[0]);
      norm = cr_tensor_ref (saved_norm);
    }

  if (p == 0.0)
    {
      /* PyTorch's norm_backward gives an undefined gradient: none reaches x
       * (x.grad stays None), though x takes part. */
      grad_inputs[0] = NULL;
      return TRUE;
    }
  if (p == 1.0)
    {
      g_autoptr(CrTensor) sgn = cr_unary (CR_OP_SGN, x, error);

      SET_GRAD (0, sgn != NULL ? cr_mul (sgn, grad, error) : NULL);
      return TRUE;
    }
  if (isinf (p))
    {
      /* sgn(x) * ((grad / count) * mask), as PyTorch 1.13 writes it. */
      g_autoptr(CrTensor) sgn = cr_unary (CR_OP_SGN, x, error);
      g_autoptr(CrTensor) ax = sgn != NULL ? cr_kernel_unary (CR_UNARY_ABS, x, error) : NULL;
      g_autoptr(CrTensor) mask = ax != NULL ? cr_kernel_binary (CR_BINARY_EQ, ax, norm, error)
                                            : NULL;
      g_autoptr(CrTensor) count = mask != NULL ? cr_kernel_sum (mask, args->dims, args->n_dims,
                                                                args->n_dims > 0, error)
                                               : NULL;
      g_autoptr(CrTensor) share = count != NULL ? cr_div (grad, count, error) : NULL;
      g_autoptr(CrTensor) spread = share != NULL ? cr_mul (share, mask, error) : NULL;

      SET_GRAD (0, spread != NULL ? cr_mul (sgn, spread, error) : NULL);
      return TRUE;
    }

  {
    /* As PyTorch 1.13 writes it (a double backward meets the same nodes),
     * grad and norm only unsqueezed back: p = 2, grad * (x / norm)
     * .masked_fill_(norm == 0, 0); else self_scaled * (grad / norm^(p-1))
     * .masked_fill_(norm == 0, 0), with self_scaled x·|x|^(p-2) (p > 2) or
     * sgn(x)·|x|^(p-1) (p < 2). */
    g_autoptr(CrTensor) g = unsqueeze_reduced (grads[0], &node->input_meta[0], args->dims,
                                               args->n_dims, args->keepdim, error);
    g_autoptr(CrTensor) n = g != NULL ? unsqueeze_reduced (saved_norm, &node->input_meta[0],
                                                           args->dims, args->n_dims,
                                                           args->keepdim, error) : NULL;
    g_autoptr(CrTensor) is_zero = n != NULL ? cr_kernel_binary (CR_BINARY_EQ, n, zero, error)
                                            : NULL;
    g_autoptr(CrTensor) denom = NULL;
    g_autoptr(CrTensor) ratio = NULL;
    g_autoptr(CrTensor) scale = NULL;
    g_autoptr(CrTensor) scaled_x = NULL;

    if (is_zero == NULL)
      return FALSE;
    if (p == 2.0)
      {
        ratio = cr_div (x, n, error);
        scale = ratio != NULL ? cr_masked_fill (ratio, is_zero, zero, error) : NULL;
        SET_GRAD (0, scale != NULL ? cr_mul (g, scale, error) : NULL);
        return TRUE;
      }
    denom = cr_pow_scalar (n, p - 1.0, error);
    ratio = denom != NULL ? cr_div (g, denom, error) : NULL;
    scale = ratio != NULL ? cr_masked_fill (ratio, is_zero, zero, error) : NULL;
    if (scale == NULL)
      return FALSE;
    {
      g_autoptr(CrTensor) ax = cr_unary (CR_OP_ABS, x, error);
      g_autoptr(CrTensor) ap = ax != NULL ? cr_pow_scalar (ax, p < 2.0 ? p - 1.0 : p - 2.0,
                                                           error) : NULL;
      g_autoptr(CrTensor) base = NULL;

      if (ap == NULL)
        return FALSE;
      base = p < 2.0 ? cr_unary (CR_OP_SGN, x, error) : cr_tensor_ref (x);
      scaled_x = base != NULL ? cr_mul (base, ap, error) : NULL;
    }
    SET_GRAD (0, scaled_x != NULL ? cr_mul (scaled_x, scale, error) : NULL);
  }
  return TRUE;
}

/* args.scalar[0]: p; args.dims / n_dims / keepdim (n_dims 0: every element);
 * the input in slot 0, the norm in slot 1. x.norm() and
 * torch.norm(x) are NormBackward1 in PyTorch 1.13 (torch.linalg.norm would be
 * LinalgVectorNormBackward0). */
const CrOpInfo cr_op_row_NORM = {
  CR_OP_NORM, "norm", "NormBackward1", 1, "‖x‖",
  "∂‖x‖₂/∂x = x/‖x‖₂  (p-norm: sign(x)·|x|ᵖ⁻¹/‖x‖ₚᵖ⁻¹)",
  norm_backward, NULL
};

CrTensor *
cr_norm (CrTensor  *x,
         double     p,
         GError   **error)
{
  return cr_norm_dim (x, p, NULL, 0, FALSE, error);
}

/* torch.linalg.vector_norm's node: norm's rule under its own name, with
 * the same args and slots (_saved_ord for p). */
const CrOpInfo cr_op_row_LINALG_VECTOR_NORM = {
  CR_OP_LINALG_VECTOR_NORM, "linalg_vector_norm", "LinalgVectorNormBackward0", 1, "‖x‖",
  "∂‖x‖₂/∂x = x/‖x‖₂  (p-norm: sign(x)·|x|ᵖ⁻¹/‖x‖ₚᵖ⁻¹)",
  norm_backward, NULL
};

static CrTensor *norm_recorded (CrOpId op, CrTensor *x, double p, const int *dims, int n_dims,
                                gboolean keepdim, GError **error);

CrTensor *
cr_linalg_vector_norm (CrTensor   *x,
                       double      ord,
                       const int  *dims,
                       int         n_dims,
                       gboolean    keepdim,
                       GError    **error)
{
  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                   "Got %s", cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  int all[CR_MAX_DIMS];
  gboolean dims_given = n_dims > 0;
  CrTensor *out;

  if (!dims_given && keepdim)
    {
      /* Every dim kept as size 1; _saved_dim still None, as in PyTorch. */
      for (int i = 0; i < x->ndim; i++)
        all[i] = i;
      dims = all;
      n_dims = x->ndim;
    }
  out = norm_recorded (CR_OP_LINALG_VECTOR_NORM, x, ord, dims, n_dims, keepdim, error);
  if (out != NULL && out->grad_fn != NULL && out->grad_fn->op->id == CR_OP_LINALG_VECTOR_NORM)
    cr_node_args (out->grad_fn)->ints[0] = dims_given;
  return out;
}

CrTensor *
cr_norm_dim (CrTensor   *x,
             double      p,
             const int  *dims,
             int         n_dims,
             gboolean    keepdim,
             GError    **error)
{
  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "norm(): input dtype should be either floating point or complex. "
                   "Got %s instead.", cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  return norm_recorded (CR_OP_NORM, x, p, dims, n_dims, keepdim, error);
}

static CrTensor *
norm_recorded (CrOpId      op,
               CrTensor   *x,
               double      p,
               const int  *dims,
               int         n_dims,
               gboolean    keepdim,
               GError    **error)
{
  int wrapped[CR_MAX_DIMS];
  CrTensor *out;
  CrNode *node;

  for (int i = 0; i < n_dims; i++)
    {
      wrapped[i] = dims[i];
      if (!cr_ops_wrap_dim (&wrapped[i], x->ndim, error))
        return NULL;
    }
  if (x->ndim == 0)
    n_dims = 0;
  qsort (wrapped, n_dims, sizeof (int), compare_ints);
  out = norm_forward (x, p, wrapped, n_dims, keepdim, error);
  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      memcpy (cr_node_args (node)->dims, wrapped, sizeof (int) * n_dims);
      cr_node_args (node)->n_dims = n_dims;
      cr_node_args (node)->keepdim = keepdim;
      cr_node_args (node)->scalar[0] = p;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

/* ---- sum_to_shape ------------------------------------------------------ */

CrTensor *
cr_sum_to_shape (CrTensor      *x,
                 const gint64  *shape,
                 int            ndim,
                 GError       **error)
{
  int dims[CR_MAX_DIMS];
  int n_dims = 0;
  int leading;
  g_autoptr(CrTensor) summed = NULL;

  if (cr_shape_equal (x->shape, x->ndim, shape, ndim))
    return cr_tensor_ref (x);
  if (!cr_autograd_should_record (&x, 1))
    return cr_kernel_sum_to_shape (x, shape, ndim, error);

  /* PyTorch's at::sum_to: sum(dims, keepdim=True), then a view when leading
   * dims have to go. */
  if (ndim == 0)
    return cr_sum (x, error);
  leading = x->ndim - ndim;
  for (int d = 0; d < leading; d++)
    dims[n_dims++] = d;
  for (int d = leading; d < x->ndim; d++)
    if (shape[d - leading] == 1 && x->shape[d] != 1)
      dims[n_dims++] = d;
  summed = n_dims > 0 ? cr_sum_dim (x, dims, n_dims, TRUE, error) : cr_tensor_ref (x);
  if (summed == NULL)
    return NULL;
  if (leading > 0)
    return cr_view (summed, shape, ndim, error);
  return g_steal_pointer (&summed);
}
