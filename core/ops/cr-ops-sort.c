/* cr-ops-sort.c — torch.sort, argsort and topk, and the values picked by
 * order: median, kthvalue, mode.
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

/* Arranges a slice (items[j] = (value, j), j < size) so that what an op
 * returns starts at the position it gives back: the sorts give 0 (the
 * first k in order); median, kthvalue and mode below give their pick. */
typedef gint64 (*SliceArrange) (Item    *items,
                                gint64   size,
                                gint64   arg);

static gint64
arrange_ascending (Item   *items,
                   gint64  size,
                   gint64  arg)
{
  /* g_qsort_with_data is a stable merge sort. */
  g_qsort_with_data (items, (gint) size, sizeof (Item), item_cmp_ascending, NULL);
  return 0;
}

static gint64
arrange_descending (Item   *items,
                    gint64  size,
                    gint64  arg)
{
  g_qsort_with_data (items, (gint) size, sizeof (Item), item_cmp_descending, NULL);
  return 0;
}

/* count elements of each slice of x along dim, as arrange picks them:
 * out_indices (int64, on x's device) and out_pos (the flat positions, on
 * the host), both of shape (x's with dim of size count, or without dim). */
static gboolean
select_slices (CrTensor      *x,
               int            dim,
               const gint64  *shape,
               int            ndim,
               gint64         count,
               SliceArrange   arrange,
               gint64         arg,
               CrTensor     **out_indices,
               CrTensor     **out_pos,
               GError       **error)
{
  g_autoptr(CrTensor) host = NULL;
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autofree Item *items = NULL;
  gint64 outer, size, inner;
  gint64 *iv, *pv;

  cr_ops_split_at_dim (x, dim, &outer, &size, &inner);
  host = x->device == CR_DEVICE_CPU ? cr_tensor_contiguous (x, error)
                                    : cr_tensor_to_device (x, CR_DEVICE_CPU, error);
  if (host == NULL)
    return FALSE;
  indices = cr_tensor_new_empty (shape, ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  pos = cr_tensor_new_empty (shape, ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (indices == NULL || pos == NULL)
    return FALSE;
  iv = cr_tensor_data (indices);
  pv = cr_tensor_data (pos);
  items = g_new (Item, MAX (size, 1));

  for (gint64 o = 0; o < outer && size > 0; o++)
    for (gint64 i = 0; i < inner; i++)
      {
        gint64 base = o * size * inner + i;
        gint64 first;

        for (gint64 j = 0; j < size; j++)
          {
            items[j].value = cr_tensor_get_flat (host, base + j * inner);
            items[j].index = j;
          }
        first = arrange (items, size, arg);
        for (gint64 j = 0; j < count; j++)
          {
            gint64 at = o * count * inner + j * inner + i;

            iv[at] = items[first + j].index;
            pv[at] = base + items[first + j].index * inner;
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

/* The first k of each slice of x along dim, in order, as select_slices. */
static gboolean
order_slices (CrTensor   *x,
              int         dim,
              gint64      k,
              gboolean    descending,
              CrTensor  **out_indices,
              CrTensor  **out_pos,
              GError    **error)
{
  gint64 shape[CR_MAX_DIMS];

  for (int d = 0; d < x->ndim; d++)
    shape[d] = d == dim ? k : x->shape[d];
  return select_slices (x, dim, shape, x->ndim, k,
                        descending ? arrange_descending : arrange_ascending, 0, out_indices,
                        out_pos, error);
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

/* ---- median, kthvalue, mode: one value picked from each slice ----------- */

/* torch.median(dim): the first NaN if there is one, else the lower median
 * of an order in which ties go by index (the comparison PyTorch's
 * nth_element uses), which the stable sort gives. */
static gint64
pick_median (Item   *items,
             gint64  size,
             gint64  k)
{
  for (gint64 j = 0; j < size; j++)
    if (isnan (items[j].value))
      return j;
  return arrange_ascending (items, size, 0) + (size - 1) / 2;
}

/* NaN above every number (PyTorch's gt_or_nan). */
static gboolean
gt_or_nan (double a,
           double b)
{
  return (isnan (a) && !isnan (b)) || a > b;
}

static void
swap_items (Item   *items,
            gint64  i,
            gint64  j)
{
  Item t = items[i];

  items[i] = items[j];
  items[j] = t;
}

/* torch.kthvalue: PyTorch 1.13's quick_select_template (median-of-three
 * quickselect), whose partitions decide which of equal values is returned;
 * k counts from 0 here. */
static gint64
pick_kth (Item   *items,
          gint64  size,
          gint64  k)
{
  gint64 left = 0, right = size - 1;

  for (;;)
    {
      gint64 i, j, mid;
      double pivot;

      if (right <= left)
        break;
      if (right == left + 1)
        {
          if (gt_or_nan (items[left].value, items[right].value))
            swap_items (items, left, right);
          break;
        }
      mid = left + (right - left) / 2;
      swap_items (items, mid, left + 1);
      if (gt_or_nan (items[left + 1].value, items[right].value))
        swap_items (items, left + 1, right);
      if (gt_or_nan (items[left].value, items[right].value))
        swap_items (items, left, right);
      if (gt_or_nan (items[left + 1].value, items[left].value))
        swap_items (items, left + 1, left);

      i = left + 1;
      j = right;
      pivot = items[left].value;
      for (;;)
        {
          do
            i++;
          while (gt_or_nan (pivot, items[i].value));
          do
            j--;
          while (gt_or_nan (items[j].value, pivot));
          if (j < i)
            break;
          swap_items (items, i, j);
        }
      swap_items (items, left, j);
      if (j <= k)
        left = i;
      if (j >= k)
        right = j - 1;
    }
  return k;
}

/* torch.mode: PyTorch sorts (value, index) pairs by value and walks the
 * runs of equal values; the first longest run wins (the smallest value)
 * with the index of its last pair. Its std::sort keeps equal values in
 * index order for the slices of up to 16 that it insertion-sorts; the
 * stable sort does so for all. */
static gint64
pick_mode (Item   *items,
           gint64  size,
           gint64  k)
{
  gint64 best = 0, best_count = 0, run = 0;

  arrange_ascending (items, size, 0);
  for (gint64 j = 0; j < size; j++)
    {
      run++;
      if (j == size - 1 || items[j].value != items[j + 1].value)
        {
          if (run > best_count)
            {
              best = j;
              best_count = run;
            }
          run = 0;
        }
    }
  return best;
}

/* The picked element of each slice of x along dim: *out_indices (int64, on
 * x's device) and the values (a take on x's device), shaped as the
 * reduction's result. */
static CrTensor *
pick_slices (CrTensor      *x,
             int            dim,
             gboolean       keepdim,
             SliceArrange   pick,
             gint64         k,
             CrTensor     **out_indices,
             GError       **error)
{
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) pos_dev = NULL;
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;
  CrTensor *values;

  for (int d = 0; d < x->ndim; d++)
    if (d != dim || keepdim)
      shape[ndim++] = d == dim ? 1 : x->shape[d];
  if (!select_slices (x, dim, shape, ndim, 1, pick, k, &indices, &pos, error))
    return NULL;
  pos_dev = cr_ops_positions_to (g_steal_pointer (&pos), x->device, error);
  values = pos_dev != NULL ? cr_kernel_take (x, pos_dev, error) : NULL;
  if (values != NULL)
    *out_indices = g_steal_pointer (&indices);
  return values;
}

/* PyTorch's checks, in its words: the dtype (bool has no kernel but for
 * mode: kernel names the one PyTorch's message names, NULL for mode), and
 * a slice to pick from. */
static gboolean
check_pick (CrTensor    *x,
            const char  *name,
            const char  *kernel,
            int         *dim,
            gboolean     check_empty,
            GError     **error)
{
  if (kernel != NULL && x->dtype == CR_DTYPE_BOOL)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"%s\" not implemented for 'Bool'", kernel);
      return FALSE;
    }
  if (dim == NULL)
    return TRUE;
  if (!cr_ops_wrap_dim (dim, x->ndim, error))
    return FALSE;
  if (check_empty && x->ndim > 0 && x->shape[*dim] == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "%s(): Expected reduction dim %d to have non-zero size.", name, *dim);
      return FALSE;
    }
  return TRUE;
}

static CrTensor *
pick_op (CrOpId         op,
         CrTensor      *x,
         int            dim,
         gboolean       keepdim,
         SliceArrange   pick,
         gint64      k,
         CrTensor  **out_indices,
         GError    **error)
{
  g_autoptr(CrTensor) indices = NULL;
  CrTensor *values = pick_slices (x, dim, keepdim, pick, k, &indices, error);
  CrNode *node;

  if (values == NULL)
    return NULL;
  if ((node = cr_ops_record (op, &x, 1, values)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      cr_node_args (node)->keepdim = keepdim;
      cr_node_save (node, 0, indices, FALSE);
    }
  *out_indices = g_steal_pointer (&indices);
  return values;
}

/* The input in slot 0, the result in slot 1. */
const CrOpInfo cr_op_row_MEDIAN_ALL = {
  CR_OP_MEDIAN_ALL, "median", "MedianBackward0", 1, "median",
  "∂median(x)/∂xᵢ = 1/k at each of the k elements equal to the median, else 0",
  cr_ops_evenly_distribute_backward, NULL
};

/* args.dims[0]: the dim; args.keepdim; the indices in slot 0. */
const CrOpInfo cr_op_row_MEDIAN_DIM = {
  CR_OP_MEDIAN_DIM, "median", "MedianBackward1", 1, "median",
  "∂median_dim(x)/∂xᵢ = 1 at the median of each slice, else 0",
  cr_ops_value_selecting_backward, NULL
};

const CrOpInfo cr_op_row_KTHVALUE = {
  CR_OP_KTHVALUE, "kthvalue", "KthvalueBackward0", 1, "kth",
  "∂kthvalue(x)/∂xᵢ = 1 at the k-th smallest of each slice, else 0",
  cr_ops_value_selecting_backward, NULL
};

const CrOpInfo cr_op_row_MODE = {
  CR_OP_MODE, "mode", "ModeBackward0", 1, "mode",
  "∂mode(x)/∂xᵢ = 1 at the returned place of the most frequent value, else 0",
  cr_ops_value_selecting_backward, NULL
};

CrTensor *
cr_median_all (CrTensor  *x,
               GError   **error)
{
  g_autoptr(CrTensor) contiguous = NULL;
  g_autoptr(CrTensor) flat = NULL;
  g_autoptr(CrTensor) indices = NULL;
  CrTensor *out;
  CrNode *node;
  gint64 n = x->numel, one = 1;

  if (!check_pick (x, "median", x->device == CR_DEVICE_CPU ? "median_cpu" : "median_cuda", NULL,
                   FALSE, error))
    return NULL;
  /* The median of nothing is NaN, as PyTorch's median_impl. */
  if (n == 0)
    return cr_tensor_new_full (NULL, 0, NAN, x->dtype, x->device, error);
  /* x's elements in row-major order as one slice. */
  if ((contiguous = cr_tensor_contiguous (x, error)) == NULL)
    return NULL;
  flat = cr_tensor_new_view (contiguous, &n, 1, &one, contiguous->offset);
  out = pick_slices (flat, 0, FALSE, pick_median, 0, &indices, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_MEDIAN_ALL, &x, 1, out)) != NULL)
    {
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}

CrTensor *
cr_median_dim (CrTensor   *x,
               int         dim,
               gboolean    keepdim,
               CrTensor  **out_indices,
               GError    **error)
{
  if (!check_pick (x, "median", "median_out", &dim, TRUE, error))
    return NULL;
  return pick_op (CR_OP_MEDIAN_DIM, x, dim, keepdim, pick_median, 0, out_indices, error);
}

CrTensor *
cr_kthvalue (CrTensor   *x,
             gint64      k,
             int         dim,
             gboolean    keepdim,
             CrTensor  **out_indices,
             GError    **error)
{
  if (!check_pick (x, "kthvalue", x->device == CR_DEVICE_CPU ? "kthvalue_cpu" : "kthvalue_cuda",
                   &dim, TRUE, error))
    return NULL;
  if (k < 1 || k > (x->ndim > 0 ? x->shape[dim] : 1))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "kthvalue(): selected number k out of range for dimension %d", dim);
      return NULL;
    }
  return pick_op (CR_OP_KTHVALUE, x, dim, keepdim, pick_kth, k - 1, out_indices, error);
}

CrTensor *
cr_mode (CrTensor   *x,
         int         dim,
         gboolean    keepdim,
         CrTensor  **out_indices,
         GError    **error)
{
  if (!check_pick (x, "mode", NULL, &dim, TRUE, error))
    return NULL;
  return pick_op (CR_OP_MODE, x, dim, keepdim, pick_mode, 0, out_indices, error);
}
