/* cr-ops-cummax.c — the running maximum and minimum along a dim with their
 * positions: torch.cummax (CummaxBackward0) and torch.cummin
 * (CumminBackward0).
 *
 * PyTorch 1.13's cummax_cummin_helper: a new element takes over when it is
 * NaN or when it is >= (cummin: <=) the running value, so a tie moves the
 * index to the later element and a NaN stays once met. The backward is
 * cummaxmin_backward: the gradient scattered-added into zeros at the
 * indices (ScatterAddBackward0 under create_graph).
 *
 * The CPU scans in one pass. Other devices take one step of the dim at a
 * time with binary kernels and where, which every backend has. */
#include "cr-ops-private.h"

#include <math.h>
#include <string.h>

#include "cr-error.h"

/* ---- the scan on the CPU ------------------------------------------------- */

/* values (a contiguous copy of x) and indices (int64, contiguous) scanned
 * in place along dim: size steps of stride inner, outer blocks. */
#define CUMMAX_LOOP(type, is_nan)                                             \
  G_STMT_START {                                                             \
    type *v = cr_tensor_data (values);                                       \
    gint64 *ix = cr_tensor_data (indices);                                   \
    for (gint64 o = 0; o < outer; o++)                                       \
      for (gint64 j = 0; j < inner; j++)                                     \
        {                                                                    \
          type *vp = v + o * size * inner + j;                               \
          gint64 *ip = ix + o * size * inner + j;                            \
          type out = vp[0];                                                  \
          gint64 idx = 0;                                                    \
          for (gint64 k = 0; k < size; k++)                                  \
            {                                                                \
              type x = vp[k * inner];                                        \
              if (is_nan (x) || (!is_nan (out) && (is_min ? x <= out : x >= out))) \
                {                                                            \
                  out = x;                                                   \
                  idx = k;                                                   \
                }                                                            \
              vp[k * inner] = out;                                           \
              ip[k * inner] = idx;                                           \
            }                                                                \
        }                                                                    \
  } G_STMT_END

#define NEVER_NAN(x) FALSE

static void
scan_host (CrTensor *values,
           CrTensor *indices,
           gint64    outer,
           gint64    size,
           gint64    inner,
           gboolean  is_min)
{
  if (size == 0)
    return;   /* nothing to scan, and no first value to start from */
  switch (values->dtype)
    {
    case CR_DTYPE_FLOAT32: CUMMAX_LOOP (float, isnan); break;
    case CR_DTYPE_FLOAT64: CUMMAX_LOOP (double, isnan); break;
    case CR_DTYPE_INT32:   CUMMAX_LOOP (gint32, NEVER_NAN); break;
    case CR_DTYPE_INT64:   CUMMAX_LOOP (gint64, NEVER_NAN); break;
    case CR_DTYPE_UINT8:   CUMMAX_LOOP (guint8, NEVER_NAN); break;
    case CR_DTYPE_BOOL:    CUMMAX_LOOP (guint8, NEVER_NAN); break;
    case CR_DTYPE_COUNT:   g_assert_not_reached ();
    }
}

#undef CUMMAX_LOOP
#undef NEVER_NAN

/* ---- the scan on a device, one step at a time --------------------------- */

/* Step k of t along dim, a view of size 1 there. */
static CrTensor *
step_view (CrTensor *t,
           int       dim,
           gint64    k)
{
  gint64 shape[CR_MAX_DIMS];

  memcpy (shape, t->shape, sizeof (gint64) * t->ndim);
  shape[dim] = 1;
  return cr_tensor_new_view (t, shape, t->ndim, t->strides, t->offset + k * t->strides[dim]);
}

/* step k takes over where it is NaN (x ≠ x) or beats the running value; a
 * comparison with a NaN running value is false, as the helper's
 * !isnan(out) check makes it. */
static gboolean
scan_step (CrTensor  *values,
           CrTensor  *indices,
           int        dim,
           gint64     k,
           gboolean   is_min,
           GError   **error)
{
  g_autoptr(CrTensor) row = step_view (values, dim, k);
  g_autoptr(CrTensor) prev = step_view (values, dim, k - 1);
  g_autoptr(CrTensor) irow = step_view (indices, dim, k);
  g_autoptr(CrTensor) iprev = step_view (indices, dim, k - 1);
  g_autoptr(CrTensor) beats = cr_kernel_binary (is_min ? CR_BINARY_LE : CR_BINARY_GE, row, prev, error);
  g_autoptr(CrTensor) is_nan = beats != NULL ? cr_kernel_binary (CR_BINARY_NE, row, row, error) : NULL;
  g_autoptr(CrTensor) takes = is_nan != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_OR, beats, is_nan, error)
                                             : NULL;
  g_autoptr(CrTensor) v = takes != NULL ? cr_kernel_where (takes, row, prev, error) : NULL;
  g_autoptr(CrTensor) i = v != NULL ? cr_kernel_where (takes, irow, iprev, error) : NULL;

  return i != NULL && cr_kernel_copy_into (row, v, error) && cr_kernel_copy_into (irow, i, error);
}

/* The position k at every step k of a tensor shaped like x, int64. */
static CrTensor *
positions_along (const CrTensor  *x,
                 int              dim,
                 GError         **error)
{
  gint64 strides[CR_MAX_DIMS];
  g_autoptr(CrTensor) steps = NULL;
  g_autoptr(CrTensor) steps_dev = NULL;
  CrTensor *out;

  /* arange(size) broadcast along the other dims (stride 0). */
  for (int d = 0; d < x->ndim; d++)
    strides[d] = d == dim ? 1 : 0;
  steps = cr_tensor_new_arange (0, (double) x->shape[dim], 1, CR_DTYPE_INT64, error);
  if (steps == NULL)
    return NULL;
  steps_dev = cr_ops_positions_to (g_steal_pointer (&steps), x->device, error);
  out = steps_dev != NULL ? cr_tensor_new_empty (x->shape, x->ndim, CR_DTYPE_INT64, x->device, error)
                          : NULL;
  if (out != NULL)
    {
      g_autoptr(CrTensor) shaped = cr_tensor_new_view (steps_dev, x->shape, x->ndim, strides,
                                                               steps_dev->offset);

      if (!cr_kernel_copy_into (out, shaped, error))
        g_clear_pointer (&out, cr_tensor_unref);
    }
  return out;
}

/* ---- the op ------------------------------------------------------------- */

/* saved[0] the input, saved[1] the indices; args.dims[0]: dim. */
static gboolean
cummaxmin_backward (CrNode          *node,
                    CrTensor *const *grads,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  g_autoptr(CrTensor) zeros = NULL;
  SAVED (x, 0);
  SAVED (indices, 1);

  if (cr_shape_numel (meta->shape, meta->ndim) == 0)
    {
      SET_GRAD (0, cr_tensor_ref (x));
      return TRUE;
    }
  if ((zeros = cr_ops_zeros_meta (meta, error)) == NULL)
    return FALSE;
  SET_GRAD (0, cr_scatter_full (zeros, node->args->dims[0], indices, grads[0], 0, TRUE, FALSE,
                                error));
  return TRUE;
}

const CrOpInfo cr_op_row_CUMMAX = {
  CR_OP_CUMMAX, "cummax", "CummaxBackward0", 1, "cummax",
  "∂ cummax(x)ⱼ/∂xᵢ = 1 where i is the index of the running maximum at j, else 0",
  cummaxmin_backward, NULL
};

const CrOpInfo cr_op_row_CUMMIN = {
  CR_OP_CUMMIN, "cummin", "CumminBackward0", 1, "cummin",
  "∂ cummin(x)ⱼ/∂xᵢ = 1 where i is the index of the running minimum at j, else 0",
  cummaxmin_backward, NULL
};

CrTensor *
cr_cummaxmin (CrTensor  *x,
              int        dim,
              gboolean   is_min,
              CrTensor **out_indices,
              GError   **error)
{
  g_autoptr(CrTensor) values = NULL;
  g_autoptr(CrTensor) indices = NULL;
  gint64 outer, size, inner;
  CrNode *node;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  values = cr_tensor_copy (x, error);
  if (values != NULL)
    indices = x->ndim == 0 ? cr_tensor_new_zeros (NULL, 0, CR_DTYPE_INT64, x->device, error)
                           : positions_along (x, dim, error);
  if (indices == NULL)
    return NULL;

  cr_ops_split_at_dim (x, dim, &outer, &size, &inner);
  if (x->device == CR_DEVICE_CPU)
    scan_host (values, indices, outer, size, inner, is_min);
  else
    for (gint64 k = 1; k < size; k++)
      if (!scan_step (values, indices, dim, k, is_min, error))
        return NULL;

  if ((node = cr_ops_record (is_min ? CR_OP_CUMMIN : CR_OP_CUMMAX, &x, 1, values)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, indices, FALSE);
    }
  *out_indices = g_steal_pointer (&indices);
  return g_steal_pointer (&values);
}
