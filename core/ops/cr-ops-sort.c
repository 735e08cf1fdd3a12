/* cr-ops-sort.c — torch.sort, argsort and topk.
 *
 * The order of each slice along dim is found on the host (a stable sort of
 * (value, index) pairs, NaN after every number as in PyTorch), giving the
 * indices and the flat (row-major) positions they pick. The values are a
 * take at those positions on the tensor's own device; the backward puts the
 * gradient back at them in zeros, as PyTorch's
 * value_selecting_reduction_backward scatters it (differentiable, so
 * create_graph works). */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"

#include <math.h>

typedef struct {
  double value;
  gint64 index;
} Item;

/* Ascending, NaN last; equal values keep their index order (stable). */
static gint
item_cmp_ascending (gconstpointer pa,
                    gconstpointer pb,
                    gpointer      unused)
{
  const Item *a = pa, *b = pb;
  gboolean na = isnan (a->value), nb = isnan (b->value);

  if (na != nb)
    return na ? 1 : -1;
  if (!na && a->value != b->value)
    return a->value < b->value ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Descending, NaN first (the reverse of the ascending order of values);
 * equal values still in index order. */
static gint
item_cmp_descending (gconstpointer pa,
                     gconstpointer pb,
                     gpointer      unused)
{
  const Item *a = pa, *b = pb;
  gboolean na = isnan (a->value), nb = isnan (b->value);

  if (na != nb)
    return na ? -1 : 1;
  if (!na && a->value != b->value)
    return a->value > b->value ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* SORT, TOPK: saved[0] the flat positions taken from the input; saved[1]
 * the indices returned, kept only to show them (PyTorch's _saved_indices);
 * args.dims[0] the dim. */
static gboolean
sort_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  SAVED (pos, 0);

  if (!cr_ops_check_saved_from (node, 1, error))
    return FALSE;

  SET_GRAD (0, cr_ops_scatter_add_flat (grads[0], pos, &node->input_meta[0], error));
  return TRUE;
}

const CrOpInfo cr_op_row_SORT = {
  CR_OP_SORT, "sort", "SortBackward0", 1, "sort",
  "∂sort(x)/∂x: G put back where each value came from",
  sort_backward, NULL
};

const CrOpInfo cr_op_row_TOPK = {
  CR_OP_TOPK, "topk", "TopkBackward0", 1, "topk",
  "∂topk(x)/∂x: G put back where each value came from, 0 elsewhere",
  sort_backward, NULL
};

/* The first k of each slice of x along dim, in order: out_indices (int64,
 * on x's device) and out_pos (the flat positions, on the host), both of
 * x's shape with dim of size k. */
static gboolean
order_slices (CrTensor   *x,
              int         dim,
              gint64      k,
              gboolean    descending,
              CrTensor  **out_indices,
              CrTensor  **out_pos,
              GError    **error)
{
  g_autoptr(CrTensor) host = NULL;
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autofree Item *items = NULL;
  gint64 shape[CR_MAX_DIMS];
  gint64 size = x->ndim > 0 ? x->shape[dim] : 1;
  gint64 inner = 1, outer = 1;
  gint64 *iv, *pv;

  for (int d = 0; d < x->ndim; d++)
    {
      shape[d] = d == dim ? k : x->shape[d];
      if (d < dim)
        outer *= x->shape[d];
      else if (d > dim)
        inner *= x->shape[d];
    }
  host = x->device == CR_DEVICE_CPU ? cr_tensor_contiguous (x, error)
                                    : cr_tensor_to_device (x, CR_DEVICE_CPU, error);
  if (host == NULL)
    return FALSE;
  indices = cr_tensor_new_empty (shape, x->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  pos = cr_tensor_new_empty (shape, x->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (indices == NULL || pos == NULL)
    return FALSE;
  iv = cr_tensor_data (indices);
  pv = cr_tensor_data (pos);
  items = g_new (Item, MAX (size, 1));

  for (gint64 o = 0; o < outer; o++)
    for (gint64 i = 0; i < inner; i++)
      {
        gint64 base = o * size * inner + i;

        for (gint64 j = 0; j < size; j++)
          {
            items[j].value = cr_tensor_get_flat (host, base + j * inner);
            items[j].index = j;
          }
        /* g_qsort_with_data is a stable merge sort. */
        g_qsort_with_data (items, (gint) size, sizeof (Item),
                           descending ? item_cmp_descending : item_cmp_ascending, NULL);
        for (gint64 j = 0; j < k; j++)
          {
            gint64 at = o * k * inner + j * inner + i;

            iv[at] = items[j].index;
            pv[at] = base + items[j].index * inner;
          }
      }
  if (x->device != CR_DEVICE_CPU)
    {
      CrTensor *moved = cr_tensor_to_device (indices, x->device, error);

      if (moved == NULL)
        return FALSE;
      cr_tensor_unref (indices);
      indices = moved;
    }
  *out_indices = g_steal_pointer (&indices);
  *out_pos = g_steal_pointer (&pos);
  return TRUE;
}

/* values = x at the positions, recording op with the positions and the
 * indices saved. */
static CrTensor *
take_sorted (CrOpId     op,
             CrTensor  *x,
             int        dim,
             CrTensor  *pos,
             CrTensor  *indices,
             GError   **error)
{
  g_autoptr(CrTensor) on_device = cr_ops_positions_to (cr_tensor_ref (pos), x->device, error);
  CrTensor *values = on_device != NULL ? cr_kernel_take (x, on_device, error) : NULL;
  CrNode *node;

  /* The positions on x's device, where the backward puts the gradient. */
  if (values != NULL && (node = cr_ops_record (op, &x, 1, values)) != NULL)
    {
      cr_node_save (node, 0, on_device, FALSE);
      cr_node_save (node, 1, indices, FALSE);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
    }
  return values;
}

CrTensor *
cr_sort (CrTensor   *x,
         int         dim,
         gboolean    descending,
         CrTensor  **out_indices,
         GError    **error)
{
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *values;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error)
      || !order_slices (x, dim, x->ndim > 0 ? x->shape[dim] : 1, descending, &indices, &pos,
                        error))
    return NULL;
  values = take_sorted (CR_OP_SORT, x, dim, pos, indices, error);
  if (values != NULL && out_indices != NULL)
    *out_indices = g_steal_pointer (&indices);
  return values;
}

CrTensor *
cr_topk (CrTensor   *x,
         gint64      k,
         int         dim,
         gboolean    largest,
         CrTensor  **out_indices,
         GError    **error)
{
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *values;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (k < 0 || k > (x->ndim > 0 ? x->shape[dim] : 1))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "selected index k out of range");
      return NULL;
    }
  if (!order_slices (x, dim, k, largest, &indices, &pos, error))
    return NULL;
  values = take_sorted (CR_OP_TOPK, x, dim, pos, indices, error);
  if (values != NULL && out_indices != NULL)
    *out_indices = g_steal_pointer (&indices);
  return values;
}
