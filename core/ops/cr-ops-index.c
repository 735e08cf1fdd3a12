/* cr-ops-index.c — Python's x[...] and x[...] = v, as PyTorch 1.13 does them.
 *
 * Getting walks the index items left to right the way PyTorch's applySlicing
 * does: integers select (SelectBackward0), slices slice (SliceBackward0), None
 * unsqueezes, all as views; tensor indices are only noted, then applied at the
 * end in one gather (IndexBackward0) over the basic-indexed view. The gather
 * and its scatter work on flat positions (the row-major logical index of an
 * element), which keeps every advanced-indexing case (several index tensors
 * broadcast together, masks, the NumPy rule for where the advanced dims go)
 * down to computing one int64 tensor of positions.
 *
 * Setting writes in place through the same walk (without recording), then
 * records CopySlices (basic indices), IndexPutBackward0 (tensor indices) or,
 * for a write through a view, CopySlices on the view's base and
 * AsStridedBackward0 on the view, as PyTorch's view+inplace handling shows.
 */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-cuda.h"

#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

/* Writes, for every element of a strided geometry in row-major order, its
 * offset base + Σ coord·stride. */
static void
fill_offsets (gint64       *out,
              const gint64 *shape,
              int           ndim,
              const gint64 *strides,
              gint64        base)
{
  gint64 n = cr_shape_numel (shape, ndim);
  gint64 idx[CR_MAX_DIMS] = { 0, };
  gint64 inner, inner_stride, off = base;
  int last;

  if (n == 0)
    return;
  if (ndim == 0)
    {
      out[0] = base;
      return;
    }
  last = ndim - 1;
  inner = shape[last];
  inner_stride = strides[last];
  for (gint64 i = 0; i < n; i += inner)
    {
      for (gint64 j = 0; j < inner; j++)
        out[i + j] = off + j * inner_stride;
      for (int d = last - 1; d >= 0; d--)
        {
          idx[d]++;
          off += strides[d];
          if (idx[d] < shape[d])
            break;
          off -= strides[d] * shape[d];
          idx[d] = 0;
        }
    }
}

static gint64 *
int64_data (const CrTensor *t)
{
  return (gint64 *) cr_tensor_data (t);
}

CrTensor *
cr_ops_positions_to (CrTensor     *pos,
                     CrDeviceType  device,
                     GError      **error)
{
  CrTensor *moved;

  if (pos == NULL || pos->device == device)
    return pos;
  moved = cr_tensor_to_device (pos, device, error);
  cr_tensor_unref (pos);
  return moved;
}

/* An index tensor whose values host code reads: t itself on the CPU, else a
 * synchronizing copy to the host (index lists are small next to the data
 * they select). Takes t. */
static CrTensor *
index_to_host (CrTensor  *t,
               GError   **error)
{
  return cr_ops_positions_to (t, CR_DEVICE_CPU, error);
}

/* Flat positions of a region (shape, strides and offset counted in the
 * row-major positions of some base), as a new int64 tensor of shape. */
static CrTensor *
region_positions (const gint64  *shape,
                  int            ndim,
                  const gint64  *strides,
                  gint64         offset,
                  CrDeviceType   device,
                  GError       **error)
{
  CrTensor *pos = cr_tensor_new_empty (shape, ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);

  if (pos != NULL)
    fill_offsets (int64_data (pos), shape, ndim, strides, offset);
  return cr_ops_positions_to (pos, device, error);
}

/* The flat positions, within b, of the elements of v (a view sharing b's
 * storage): an int64 tensor of v's shape. */
static CrTensor *
view_positions (const CrTensor  *v,
                const CrTensor  *b,
                GError         **error)
{
  g_autoptr(CrTensor) pos = cr_tensor_new_empty (v->shape, v->ndim, CR_DTYPE_INT64,
                                                 CR_DEVICE_CPU, error);
  gint64 *p;

  if (pos == NULL)
    return NULL;
  p = int64_data (pos);

  if (cr_tensor_is_contiguous (b))
    {
      fill_offsets (p, v->shape, v->ndim, v->strides, v->offset - b->offset);
    }
  else
    {
      /* b has a layout of its own: map storage offsets back to positions. */
      gint64 lo = b->offset, hi = b->offset, span;
      g_autofree gint64 *inverse = NULL;
      g_autofree gint64 *boffs = NULL;

      for (int d = 0; d < b->ndim; d++)
        if (b->shape[d] > 0)
          {
            gint64 ext = (b->shape[d] - 1) * b->strides[d];
            if (ext > 0)
              hi += ext;
            else
              lo += ext;
          }
      span = hi - lo + 1;
      inverse = g_new (gint64, span);
      boffs = g_new (gint64, MAX (b->numel, 1));
      fill_offsets (boffs, b->shape, b->ndim, b->strides, b->offset);
      for (gint64 i = 0; i < b->numel; i++)
        inverse[boffs[i] - lo] = i;
      fill_offsets (p, v->shape, v->ndim, v->strides, v->offset);
      for (gint64 i = 0; i < v->numel; i++)
        p[i] = inverse[p[i] - lo];
    }
  return cr_ops_positions_to (g_steal_pointer (&pos), b->device, error);
}

/* ---- differentiable gather / scatter over flat positions ---------------- */

static CrTensor *put_flat  (CrTensor  *self,
                            CrTensor  *pos,
                            CrTensor  *values,
                            gboolean   accumulate,
                            GError   **error);

/* The gradient of a gather: grad scattered (summed) into zeros of the input. */
static CrTensor *
scatter_add_into_zeros (CrTensor            *grad,
                        CrTensor            *pos,
                        const CrTensorMeta  *meta,
                        GError             **error)
{
  g_autoptr(CrTensor) zeros = cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype,
                                                   meta->device, error);

  if (zeros == NULL)
    return NULL;
  return put_flat (zeros, pos, grad, TRUE, error);
}

/* INDEX (IndexBackward0): input 0 the indexed tensor; saved[0] the positions. */
static gboolean
index_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  g_autoptr(CrTensor) pos = cr_node_get_saved (node, 0, error);

  if (pos == NULL)
    return FALSE;
  grad_inputs[0] = scatter_add_into_zeros (grad_outputs[0], pos, &node->input_meta[0], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_INDEX = {
  CR_OP_INDEX, "index", "IndexBackward0", 1, "[idx]",
  "∂x[idx]/∂x: G scattered back to idx (repeats add up)", index_backward, NULL
};

/* x.flatten()[pos] reshaped like pos, recording IndexBackward0. */
static CrTensor *
take_flat (CrTensor  *x,
           CrTensor  *pos,
           GError   **error)
{
  CrTensor *out = cr_kernel_take (x, pos, error);

  if (out == NULL)
    return NULL;
  if (cr_autograd_should_record (&x, 1))
    {
      CrNode *node = cr_node_new (CR_OP_INDEX, &x, 1, 1);
      cr_node_save (node, 0, pos, FALSE);
      cr_ops_attach (out, node);
    }
  return out;
}

CrTensor *
cr_ops_take_flat (CrTensor  *x,
                  CrTensor  *pos,
                  GError   **error)
{
  return take_flat (x, pos, error);
}

CrTensor *
cr_ops_scatter_add_flat (CrTensor            *grad,
                         CrTensor            *pos,
                         const CrTensorMeta  *meta,
                         GError             **error)
{
  return scatter_add_into_zeros (grad, pos, meta, error);
}

/* INDEX_PUT, COPY_SLICES: inputs (self, values); saved[0] the positions
 * written; args.ints[0] whether the put accumulated. */
static gboolean
put_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  CrTensor *grad = grad_outputs[0];
  g_autoptr(CrTensor) pos = cr_node_get_saved (node, 0, error);

  if (pos == NULL)
    return FALSE;

  if (cr_ops_needs_grad (node, 0))
    {
      if (node->args->ints[0])
        grad_inputs[0] = cr_tensor_ref (grad);
      else
        {
          g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, grad->dtype);
          grad_inputs[0] = put_flat (grad, pos, zero, FALSE, error);
        }
      if (grad_inputs[0] == NULL)
        return FALSE;
    }

  if (node->n_inputs > 1 && cr_ops_needs_grad (node, 1))
    {
      const CrTensorMeta *meta = &node->input_meta[1];
      g_autoptr(CrTensor) taken = take_flat (grad, pos, error);
      g_autoptr(CrTensor) reduced = NULL;

      if (taken == NULL)
        return FALSE;
      reduced = cr_sum_to_shape (taken, meta->shape, meta->ndim, error);
      if (reduced == NULL)
        return FALSE;
      if (reduced->dtype != meta->dtype)
        grad_inputs[1] = cr_to_dtype (reduced, meta->dtype, error);
      else
        grad_inputs[1] = g_steal_pointer (&reduced);
      if (grad_inputs[1] == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_INDEX_PUT = {
  CR_OP_INDEX_PUT, "index_put", "IndexPutBackward0", 2, "[idx]=",
  "∂out/∂x = G with x[idx] zeroed,  ∂out/∂v = G[idx]", put_backward, NULL
};

const CrOpInfo cr_op_row_COPY_SLICES = {
  CR_OP_COPY_SLICES, "copy_slices", "CopySlices", 2, "[…]=",
  "∂out/∂x = G with the written slice zeroed,  ∂out/∂v = G[slice]", put_backward, NULL
};

/* self with values put at pos (out of place), recording IndexPutBackward0. */
static CrTensor *
put_flat (CrTensor  *self,
          CrTensor  *pos,
          CrTensor  *values,
          gboolean   accumulate,
          GError   **error)
{
  g_autoptr(CrTensor) out = cr_tensor_copy (self, error);
  g_autoptr(CrTensor) cast = NULL;
  CrTensor *inputs[2] = { self, values };

  if (out == NULL)
    return NULL;
  if (values->dtype != out->dtype)
    {
      cast = cr_kernel_cast (values, out->dtype, error);
      if (cast == NULL)
        return NULL;
    }
  if (!cr_kernel_put (out, pos, cast != NULL ? cast : values, accumulate, error))
    return NULL;
  if (cr_autograd_should_record (inputs, 2))
    {
      CrNode *node = cr_node_new (CR_OP_INDEX_PUT, inputs, 2, 1);
      cr_node_save (node, 0, pos, FALSE);
      cr_node_args (node)->ints[0] = accumulate;
      cr_ops_attach (out, node);
    }
  return g_steal_pointer (&out);
}

/* AS_STRIDED (AsStridedBackward0): a view whose base was written in place
 * goes back through the base's new history; saved[0] its positions in the
 * base (input 0). */
static gboolean
as_strided_backward (CrNode          *node,
                     CrTensor *const *grad_outputs,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  return index_backward (node, grad_outputs, grad_inputs, error);
}

const CrOpInfo cr_op_row_AS_STRIDED = {
  CR_OP_AS_STRIDED, "as_strided", "AsStridedBackward0", 1, "view",
  "∂out/∂base: G put back where the view sits in its base", as_strided_backward, NULL
};

static gboolean
alias_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  (void) node;
  (void) error;
  grad_inputs[0] = cr_tensor_ref (grad_outputs[0]);
  return TRUE;
}

const CrOpInfo cr_op_row_ALIAS = {
  CR_OP_ALIAS, "alias", "AliasBackward0", 1, "alias",
  "∂out/∂x = 1", alias_backward, NULL
};

/* ---- select and slice --------------------------------------------------- */

/* The gradient of a basic-indexing view: zeros of the input with grad copied
 * into the region (shape, strides in the input's row-major positions, offset). */
static CrTensor *
scatter_region (CrTensor            *grad,
                const CrTensorMeta  *meta,
                const gint64        *shape,
                int                  ndim,
                const gint64        *strides,
                gint64               offset,
                GError             **error)
{
  g_autoptr(CrTensor) zeros = cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype,
                                                   meta->device, error);
  g_autoptr(CrTensor) pos = NULL;

  if (zeros == NULL)
    return NULL;
  if (!cr_autograd_should_record (&grad, 1))
    {
      g_autoptr(CrTensor) region = cr_tensor_new_view (zeros, shape, ndim, strides,
                                                       zeros->offset + offset);
      if (!cr_kernel_copy_into (region, grad, error))
        return NULL;
      return g_steal_pointer (&zeros);
    }
  /* create_graph: the same scatter as a differentiable put. */
  pos = region_positions (shape, ndim, strides, offset, meta->device, error);
  if (pos == NULL)
    return NULL;
  return put_flat (zeros, pos, grad, FALSE, error);
}

static gboolean
select_backward (CrNode          *node,
                 CrTensor *const *grad_outputs,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int dim = node->args->dims[0];
  gint64 cs[CR_MAX_DIMS], shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int ndim = 0;

  cr_shape_contiguous_strides (meta->shape, meta->ndim, cs);
  for (int d = 0; d < meta->ndim; d++)
    if (d != dim)
      {
        shape[ndim] = meta->shape[d];
        strides[ndim] = cs[d];
        ndim++;
      }
  grad_inputs[0] = scatter_region (grad_outputs[0], meta, shape, ndim, strides,
                                   node->args->ints[0] * cs[dim], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_SELECT = {
  CR_OP_SELECT, "select", "SelectBackward0", 1, "[i]",
  "∂x[i]/∂x: G placed at row i, zeros elsewhere", select_backward, NULL
};

static gboolean
slice_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int dim = node->args->dims[0];
  gint64 cs[CR_MAX_DIMS], shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];

  cr_shape_contiguous_strides (meta->shape, meta->ndim, cs);
  memcpy (shape, meta->shape, sizeof (gint64) * meta->ndim);
  memcpy (strides, cs, sizeof strides);
  shape[dim] = node->args->ints[3];
  strides[dim] = cs[dim] * node->args->ints[2];
  grad_inputs[0] = scatter_region (grad_outputs[0], meta, shape, meta->ndim, strides,
                                   node->args->ints[0] * cs[dim], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_SLICE = {
  CR_OP_SLICE, "slice", "SliceBackward0", 1, "[a:b]",
  "∂x[a:b]/∂x: G placed in the slice, zeros elsewhere", slice_backward, NULL
};

/* The dimension in PyTorch's message is the item's position in the index
 * (real_dim), and a dim past the end reads as size 0. */
static CrTensor *
select_view (CrTensor  *x,
             int        dim,
             gint64     index,
             int        real_dim,
             gboolean   record,
             GError   **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  gint64 size = dim < x->ndim ? x->shape[dim] : 0;
  int ndim = 0;
  CrTensor *out;

  if (index < -size || index >= size)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with size %"
                   G_GINT64_FORMAT, index, real_dim, size);
      return NULL;
    }
  if (index < 0)
    index += size;
  for (int d = 0; d < x->ndim; d++)
    if (d != dim)
      {
        shape[ndim] = x->shape[d];
        strides[ndim] = x->strides[d];
        ndim++;
      }
  out = cr_ops_make_view (x, shape, ndim, strides, x->offset + index * x->strides[dim]);
  if (record && cr_autograd_should_record (&x, 1))
    {
      CrNode *node = cr_node_new (CR_OP_SELECT, &x, 1, 1);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      cr_node_args (node)->ints[0] = index;
      cr_ops_attach (out, node);
    }
  return out;
}

static CrTensor *
slice_view (CrTensor           *x,
            int                 dim,
            const CrIndexItem  *item,
            gboolean            record,
            GError            **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  gint64 size;
  gint64 start = item->has_start ? item->start : 0;
  gint64 stop;
  gint64 step = item->has_step ? item->step : 1;
  gint64 len;
  CrTensor *out;

  if (dim >= x->ndim)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
                   -MAX (x->ndim, 1), MAX (x->ndim, 1) - 1, dim);
      return NULL;
    }
  size = x->shape[dim];
  stop = item->has_stop ? item->stop : size;

  if (step == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                           "slice step cannot be zero");
      return NULL;
    }
  if (step < 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                           "step must be greater than zero");
      return NULL;
    }
  if (start < 0)
    start += size;
  if (stop < 0)
    stop += size;
  if (start < 0)
    start = 0;
  else if (start >= size)
    start = size;
  if (stop < start)
    stop = start;
  else if (stop >= size)
    stop = size;
  len = (stop - start + step - 1) / step;

  memcpy (shape, x->shape, sizeof shape);
  memcpy (strides, x->strides, sizeof strides);
  shape[dim] = len;
  strides[dim] = x->strides[dim] * step;
  out = cr_ops_make_view (x, shape, x->ndim, strides, x->offset + start * x->strides[dim]);
  if (record && cr_autograd_should_record (&x, 1))
    {
      CrNode *node = cr_node_new (CR_OP_SLICE, &x, 1, 1);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      cr_node_args (node)->ints[0] = start;
      cr_node_args (node)->ints[1] = stop;
      cr_node_args (node)->ints[2] = step;
      cr_node_args (node)->ints[3] = len;
      cr_ops_attach (out, node);
    }
  return out;
}

static CrTensor *
unsqueeze_view (CrTensor *x,
                int       dim,
                gboolean  record,
                GError  **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int j = 0;

  if (record || dim > x->ndim)
    return cr_unsqueeze (x, dim, error);
  if (x->ndim >= CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  for (int d = 0; d <= x->ndim; d++)
    {
      if (d == dim)
        {
          shape[d] = 1;
          strides[d] = dim >= x->ndim ? 1 : x->shape[dim] * x->strides[dim];
        }
      else
        {
          shape[d] = x->shape[j];
          strides[d] = x->strides[j];
          j++;
        }
    }
  return cr_ops_make_view (x, shape, x->ndim + 1, strides, x->offset);
}

/* ---- the walk over index items ------------------------------------------ */

/* A tensor index as PyTorch's applySlicing records it: at the walked
 * tensor's dim `pos`, one position per tensor (a k-dim mask too; it is spread
 * over k dims only when the gather is set up, which shifts the positions of
 * the tensors after it: PyTorch's expandTensors). */
typedef struct {
  CrTensor *index;     /* owned: int64, or a bool mask */
  int       pos;
} AdvIndex;

typedef struct {
  CrTensor  *cur;                  /* owned: x after basic indexing */
  gboolean   cur_is_x;             /* no basic item changed the geometry */
  AdvIndex   adv[CR_MAX_DIMS * 2];
  int        n_adv;
} IndexWalk;

static void
index_walk_clear (IndexWalk *w)
{
  g_clear_pointer (&w->cur, cr_tensor_unref);
  for (int i = 0; i < w->n_adv; i++)
    g_clear_pointer (&w->adv[i].index, cr_tensor_unref);
  w->n_adv = 0;
}

static gboolean
replace_cur (IndexWalk *w,
             CrTensor  *next)
{
  if (next == NULL)
    return FALSE;
  cr_tensor_unref (w->cur);
  w->cur = next;
  w->cur_is_x = FALSE;
  return TRUE;
}

static gboolean
add_adv (IndexWalk  *w,
         CrTensor   *index,
         int         pos,
         GError    **error)
{
  if (w->n_adv >= (int) G_N_ELEMENTS (w->adv))
    {
      cr_tensor_unref (index);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "too many indices for tensor of dimension %d", w->cur->ndim);
      return FALSE;
    }
  w->adv[w->n_adv].index = index;
  w->adv[w->n_adv].pos = pos;
  w->n_adv++;
  return TRUE;
}

static gboolean
index_walk (IndexWalk          *w,
            CrTensor           *x,
            const CrIndexItem  *items,
            guint               n,
            gboolean            record,
            GError            **error)
{
  int specified = 0;
  int dim = 0;

  memset (w, 0, sizeof *w);
  w->cur = cr_tensor_ref (x);
  w->cur_is_x = TRUE;

  for (guint i = 0; i < n; i++)
    {
      const CrIndexItem *it = &items[i];

      switch (it->kind)
        {
        case CR_INDEX_INT:
        case CR_INDEX_SLICE:
          specified++;
          break;
        case CR_INDEX_TENSOR:
          if (it->tensor->dtype == CR_DTYPE_BOOL)
            specified += it->tensor->ndim;
          else
            specified++;
          break;
        case CR_INDEX_NONE:
        case CR_INDEX_ELLIPSIS:
        default:
          break;
        }
    }

  /* x[i] (no tuple) skips the count: PyTorch selects directly. */
  if (n == 1 && x->ndim == 0 && items[0].kind == CR_INDEX_INT && items[0].value == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                           "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
      return FALSE;
    }
  if (n == 1 && x->ndim == 0 && items[0].kind == CR_INDEX_SLICE)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "slice() cannot be applied to a 0-dim tensor.");
      return FALSE;
    }
  if (specified > x->ndim && !(n == 1 && items[0].kind == CR_INDEX_INT))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "too many indices for tensor of dimension %d", x->ndim);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      const CrIndexItem *it = &items[i];

      switch (it->kind)
        {
        case CR_INDEX_INT:
          if (!replace_cur (w, select_view (w->cur, dim, it->value, i, record, error)))
            return FALSE;
          break;

        case CR_INDEX_SLICE:
          if (!replace_cur (w, slice_view (w->cur, dim, it, record, error)))
            return FALSE;
          dim++;
          break;

        case CR_INDEX_NONE:
          if (!replace_cur (w, unsqueeze_view (w->cur, dim, record, error)))
            return FALSE;
          dim++;
          break;

        case CR_INDEX_ELLIPSIS:
          dim += x->ndim - specified;
          break;

        case CR_INDEX_TENSOR:
          {
            CrTensor *t = it->tensor;

            if (t->dtype == CR_DTYPE_INT64 && t->ndim == 0)
              {
                if (!replace_cur (w, select_view (w->cur, dim, cr_tensor_read_flat_int (t, 0),
                                                  i, record, error)))
                  return FALSE;
              }
            else if (t->dtype == CR_DTYPE_BOOL && t->ndim == 0)
              {
                /* x[True] adds a dim of 1 (or 0 for False), as NumPy does. */
                gint64 len = cr_tensor_read_flat (t, 0) != 0.0 ? 1 : 0;
                gint64 zero = 0;
                CrTensor *idx;

                if (!replace_cur (w, unsqueeze_view (w->cur, dim, record, error)))
                  return FALSE;
                idx = cr_tensor_new_from_data (&zero, &len, 1, CR_DTYPE_INT64, error);
                if (idx == NULL || !add_adv (w, idx, dim, error))
                  return FALSE;
                dim++;
              }
            else
              {
                /* Other dtypes are refused when the gather is set up, after
                 * the basic items (PyTorch's order of errors). */
                if (!add_adv (w, cr_tensor_ref (t), dim, error))
                  return FALSE;
                dim++;
              }
          }
          break;

        default:
          g_return_val_if_reached (FALSE);
        }
    }
  return TRUE;
}

/* PyTorch's checks at the start of index(), then expandTensors: each k-dim
 * mask becomes k int64 index tensors (the coordinates of its true elements)
 * and the positions after it shift by k - 1. */
static gboolean
expand_masks (IndexWalk  *w,
              GError    **error)
{
  AdvIndex out[CR_MAX_DIMS * 2];
  int n_out = 0, shift = 0;
  int listed = w->adv[w->n_adv - 1].pos + 1;
  gboolean ok = FALSE;

  if (listed > w->cur->ndim)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "too many indices for tensor of dimension %d (got %d)",
                   w->cur->ndim, listed);
      return FALSE;
    }
  for (int i = 0; i < w->n_adv; i++)
    {
      CrDType dtype = w->adv[i].index->dtype;
      if (dtype != CR_DTYPE_INT64 && dtype != CR_DTYPE_BOOL)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                               "tensors used as indices must be long, byte or bool tensors");
          return FALSE;
        }
    }
  /* The positions are built on the host from the index values: an index on
   * a device is copied over once here (a sync), the result goes back to the
   * indexed tensor's device in advanced_positions. */
  for (int i = 0; i < w->n_adv; i++)
    if (w->adv[i].index->device != CR_DEVICE_CPU)
      {
        w->adv[i].index = index_to_host (w->adv[i].index, error);
        if (w->adv[i].index == NULL)
          return FALSE;   /* index_walk_clear() skips the NULL */
      }

  for (int i = 0; i < w->n_adv; i++)
    {
      AdvIndex *a = &w->adv[i];
      CrTensor *mask = a->index;
      int pos = a->pos + shift;
      g_autoptr(CrTensor) flat = NULL;
      gint64 cs[CR_MAX_DIMS];
      const gint64 *fp;
      gint64 count;

      if (mask->dtype != CR_DTYPE_BOOL)
        {
          if (n_out >= (int) G_N_ELEMENTS (out))
            goto done;
          out[n_out].index = cr_tensor_ref (a->index);
          out[n_out].pos = pos;
          n_out++;
          continue;
        }
      for (int j = 0; j < mask->ndim; j++)
        {
          if (pos + j >= w->cur->ndim)
            {
              g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "Dimension out of range (expected to be in range of [%d, %d], but "
                           "got %d)", -MAX (w->cur->ndim, 1), MAX (w->cur->ndim, 1) - 1, pos + j);
              goto done;
            }
          if (mask->shape[j] != w->cur->shape[pos + j])
            {
              g_autofree char *ms = cr_shape_to_string (mask->shape, mask->ndim);
              g_autofree char *xs = cr_shape_to_string (w->cur->shape, w->cur->ndim);
              g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "The shape of the mask %s at index %d does not match the shape of "
                           "the indexed tensor %s at index %d", ms, j, xs, pos + j);
              goto done;
            }
        }
      flat = cr_kernel_nonzero_flat (mask, error);
      if (flat == NULL)
        goto done;
      count = flat->numel;
      fp = int64_data (flat);
      cr_shape_contiguous_strides (mask->shape, mask->ndim, cs);
      for (int j = 0; j < mask->ndim; j++)
        {
          CrTensor *coord;
          gint64 *cp;

          if (n_out >= (int) G_N_ELEMENTS (out))
            goto done;
          coord = cr_tensor_new_empty (&count, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
          if (coord == NULL)
            goto done;
          cp = int64_data (coord);
          for (gint64 e = 0; e < count; e++)
            cp[e] = (fp[e] / cs[j]) % mask->shape[j];
          out[n_out].index = coord;
          out[n_out].pos = pos + j;
          n_out++;
        }
      shift += mask->ndim - 1;
    }
  ok = TRUE;

done:
  if (!ok)
    {
      for (int k = 0; k < n_out; k++)
        cr_tensor_unref (out[k].index);
      if (error != NULL && *error == NULL)
        g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                     "too many indices for tensor of dimension %d", w->cur->ndim);
      return FALSE;
    }
  for (int i = 0; i < w->n_adv; i++)
    g_clear_pointer (&w->adv[i].index, cr_tensor_unref);
  memcpy (w->adv, out, sizeof (AdvIndex) * n_out);
  w->n_adv = n_out;
  return TRUE;
}

/* The flat positions within w->cur of the advanced-indexing result: an int64
 * tensor of the result's shape. */
static CrTensor *
advanced_positions (IndexWalk  *w,
                    GError    **error)
{
  const CrTensor *cur = w->cur;
  gint64 cs[CR_MAX_DIMS];
  gint64 bshape[CR_MAX_DIMS];
  int bndim = 0;
  gboolean adjacent = TRUE;
  gboolean indexed[CR_MAX_DIMS] = { FALSE, };
  gint64 pre_shape[CR_MAX_DIMS], pre_strides[CR_MAX_DIMS];
  gint64 post_shape[CR_MAX_DIMS], post_strides[CR_MAX_DIMS];
  int n_pre = 0, n_post = 0;
  gint64 out_shape[CR_MAX_DIMS];
  int out_ndim = 0;
  gint64 nb, npre, npost;
  g_autofree gint64 *adv_off = NULL;
  g_autofree gint64 *pre_off = NULL;
  g_autofree gint64 *post_off = NULL;
  g_autofree gint64 *offs = NULL;
  g_autoptr(CrTensor) pos = NULL;
  gint64 *p;

  /* PyTorch's index(): a CPU tensor takes no device indices. */
  for (int i = 0; i < w->n_adv; i++)
    if (w->adv[i].index->device != CR_DEVICE_CPU && w->adv[i].index->device != cur->device)
      {
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "indices should be either on cpu or on the same device as the indexed "
                     "tensor (%s)", cur->device == CR_DEVICE_CPU ? "cpu" : "cuda:0");
        return NULL;
      }

  /* A single mask over every dim (x[x < 0]): the positions are the mask's. */
  if (w->n_adv == 1 && w->adv[0].pos == 0 && w->adv[0].index->dtype == CR_DTYPE_BOOL
      && cr_shape_equal (w->adv[0].index->shape, w->adv[0].index->ndim, cur->shape, cur->ndim))
    return cr_ops_positions_to (cr_kernel_nonzero_flat (w->adv[0].index, error), cur->device,
                                error);

  if (!expand_masks (w, error))
    return NULL;

  /* Broadcast the index tensors together. */
  for (int i = 0; i < w->n_adv; i++)
    {
      const CrTensor *t = w->adv[i].index;

      if (i == 0)
        {
          memcpy (bshape, t->shape, sizeof (gint64) * t->ndim);
          bndim = t->ndim;
        }
      else if (!cr_shape_broadcast (bshape, bndim, t->shape, t->ndim, bshape, &bndim, NULL))
        {
          GString *s = g_string_new ("shape mismatch: indexing tensors could not be broadcast "
                                     "together with shapes ");
          for (int k = 0; k < w->n_adv; k++)
            {
              g_autofree char *ks = cr_shape_to_string (w->adv[k].index->shape,
                                                        w->adv[k].index->ndim);
              g_string_append_printf (s, "%s%s", k > 0 ? ", " : "", ks);
            }
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR, s->str);
          g_string_free (s, TRUE);
          return NULL;
        }
    }

  for (int i = 0; i < w->n_adv; i++)
    {
      indexed[w->adv[i].pos] = TRUE;
      if (i > 0 && w->adv[i].pos != w->adv[i - 1].pos + 1)
        adjacent = FALSE;
    }

  cr_shape_contiguous_strides (cur->shape, cur->ndim, cs);
  for (int d = 0; d < cur->ndim; d++)
    {
      if (indexed[d])
        continue;
      if (adjacent && d < w->adv[0].pos)
        {
          pre_shape[n_pre] = cur->shape[d];
          pre_strides[n_pre++] = cs[d];
        }
      else
        {
          post_shape[n_post] = cur->shape[d];
          post_strides[n_post++] = cs[d];
        }
    }
  if (n_pre + bndim + n_post > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  for (int d = 0; d < n_pre; d++)
    out_shape[out_ndim++] = pre_shape[d];
  for (int d = 0; d < bndim; d++)
    out_shape[out_ndim++] = bshape[d];
  for (int d = 0; d < n_post; d++)
    out_shape[out_ndim++] = post_shape[d];

  nb = cr_shape_numel (bshape, bndim);
  npre = cr_shape_numel (pre_shape, n_pre);
  npost = cr_shape_numel (post_shape, n_post);

  /* The offset each broadcast index combination contributes. Bounds are
   * checked element by element in the result's order, as PyTorch's kernel
   * does (so an empty result checks nothing). */
  adv_off = g_new0 (gint64, MAX (nb, 1));
  offs = g_new (gint64, MAX (nb, 1) * w->n_adv);
  for (int i = 0; i < w->n_adv; i++)
    {
      const CrTensor *t = w->adv[i].index;
      gint64 bstrides[CR_MAX_DIMS];

      for (int d = 0; d < bndim; d++)
        {
          int td = d - (bndim - t->ndim);
          bstrides[d] = td < 0 || t->shape[td] == 1 ? 0 : t->strides[td];
        }
      fill_offsets (offs + i * MAX (nb, 1), bshape, bndim, bstrides, t->offset);
    }
  if (npre * npost > 0)
    for (gint64 e = 0; e < nb; e++)
      for (int i = 0; i < w->n_adv; i++)
        {
          const gint64 *data = (const gint64 *) w->adv[i].index->storage->data;
          gint64 size = cur->shape[w->adv[i].pos];
          gint64 v = data[offs[i * MAX (nb, 1) + e]];

          if (v < -size || v >= size)
            {
              g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with "
                           "size %" G_GINT64_FORMAT, v, i, size);
              return NULL;
            }
          if (v < 0)
            v += size;
          adv_off[e] += v * cs[w->adv[i].pos];
        }

  pre_off = g_new (gint64, MAX (npre, 1));
  post_off = g_new (gint64, MAX (npost, 1));
  fill_offsets (pre_off, pre_shape, n_pre, pre_strides, 0);
  fill_offsets (post_off, post_shape, n_post, post_strides, 0);

  pos = cr_tensor_new_empty (out_shape, out_ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return NULL;
  p = int64_data (pos);
  for (gint64 a = 0; a < npre; a++)
    for (gint64 b = 0; b < nb; b++)
      {
        gint64 base = pre_off[a] + adv_off[b];
        gint64 *row = p + (a * nb + b) * npost;
        for (gint64 c = 0; c < npost; c++)
          row[c] = base + post_off[c];
      }
  return cr_ops_positions_to (g_steal_pointer (&pos), cur->device, error);
}

/* ---- x[...] ---------------------------------------------------------------- */

CrTensor *
cr_index_get (CrTensor           *x,
              const CrIndexItem  *items,
              guint               n,
              GError            **error)
{
  IndexWalk w;
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *out;

  if (!index_walk (&w, x, items, n, TRUE, error))
    {
      index_walk_clear (&w);
      return NULL;
    }

  if (w.n_adv == 0)
    {
      if (w.cur_is_x)
        {
          /* x[...] and x[()] are an alias of x (AliasBackward0). */
          out = cr_ops_make_view (x, x->shape, x->ndim, x->strides, x->offset);
          if (cr_autograd_should_record (&x, 1))
            cr_ops_attach (out, cr_node_new (CR_OP_ALIAS, &x, 1, 1));
        }
      else
        out = cr_tensor_ref (w.cur);
      index_walk_clear (&w);
      return out;
    }

  pos = advanced_positions (&w, error);
  out = pos != NULL ? take_flat (w.cur, pos, error) : NULL;
  index_walk_clear (&w);
  return out;
}

/* ---- x[...] = v -------------------------------------------------------------- */

/* v's leading size-1 dims dropped, through a recorded view as PyTorch's
 * slicePrefix1sDim does; v itself (a new ref) when it has none and always is
 * FALSE. */
static CrTensor *
strip_leading_ones (CrTensor  *v,
                    gboolean   always,
                    GError   **error)
{
  int first = 0;

  while (first < v->ndim && v->shape[first] == 1)
    first++;
  if (first == 0 && !always)
    return cr_tensor_ref (v);
  return cr_view (v, v->shape + first, v->ndim - first, error);
}

static gboolean
shares_storage (const CrTensor *a,
                const CrTensor *b)
{
  return a->storage == b->storage;
}

static gboolean
check_leaf (CrTensor  *x,
            gboolean   through_view,
            GError   **error)
{
  if (!cr_grad_mode_is_enabled ())
    return TRUE;
  if (cr_autograd_is_no_grad_view (x))
    return cr_autograd_check_inplace_rules (x, error);
  if (x->grad_fn == NULL && x->requires_grad && x->view_base == NULL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           through_view
                           ? "a view of a leaf Variable that requires grad is being used in an "
                             "in-place operation."
                           : "a leaf Variable that requires grad is being used in an in-place "
                             "operation.");
      return FALSE;
    }
  if (x->view_base != NULL && x->view_base->grad_fn == NULL && x->view_base->requires_grad)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.");
      return FALSE;
    }
  return TRUE;
}

/* Records the write of value at pos (positions in x) on x's history, or on
 * its base's when x is a view (CopySlices there, AsStridedBackward0 on x). */
static gboolean
record_write (CrTensor  *x,
              CrTensor  *value,
              CrTensor  *pos,
              gboolean   advanced,
              gboolean   accumulate,
              GError   **error)
{
  CrTensor *base = x->view_base;
  CrTensor *inputs[2];
  g_autoptr(CrTensor) base_pos = NULL;
  g_autoptr(CrTensor) x_in_base = NULL;
  CrNode *node;

  if (base == NULL)
    {
      inputs[0] = x;
      inputs[1] = value;
      node = cr_node_new (advanced ? CR_OP_INDEX_PUT : CR_OP_COPY_SLICES, inputs, 2, 1);
      cr_node_save (node, 0, pos, FALSE);
      cr_node_args (node)->ints[0] = accumulate;
      cr_ops_attach (x, node);
      return TRUE;
    }

  x_in_base = view_positions (x, base, error);
  if (x_in_base == NULL)
    return FALSE;
  base_pos = cr_kernel_take (x_in_base, pos, error);
  if (base_pos == NULL)
    return FALSE;

  inputs[0] = base;
  inputs[1] = value;
  node = cr_node_new (CR_OP_COPY_SLICES, inputs, 2, 1);
  cr_node_save (node, 0, base_pos, FALSE);
  cr_node_args (node)->ints[0] = accumulate;
  cr_ops_attach (base, node);

  node = cr_node_new (CR_OP_AS_STRIDED, &base, 1, 1);
  cr_node_save (node, 0, x_in_base, FALSE);
  cr_ops_attach (x, node);
  return TRUE;
}

gboolean
cr_index_set (CrTensor           *x,
              const CrIndexItem  *items,
              guint               n,
              CrTensor           *value,
              GError            **error)
{
  return cr_index_put_ (x, items, n, value, FALSE, error);
}

gboolean
cr_index_put_ (CrTensor           *x,
               const CrIndexItem  *items,
               guint               n,
               CrTensor           *value,
               gboolean            accumulate,
               GError            **error)
{
  IndexWalk w;
  g_autoptr(CrTensor) v = NULL;
  g_autoptr(CrTensor) src = NULL;
  g_autoptr(CrTensor) pos = NULL;
  gboolean advanced, recording;
  CrTensor *check[2];
  gboolean ok = FALSE;

  if (!index_walk (&w, x, items, n, FALSE, error))
    goto out;
  advanced = w.n_adv > 0;

  if (!advanced)
    {
      CrTensor *region = w.cur;

      /* PyTorch's copy_to: same shape copies, a 0-d value fills, anything
       * else is viewed without its leading 1s and expanded. */
      if (cr_shape_equal (value->shape, value->ndim, region->shape, region->ndim)
          || value->ndim == 0)
        v = cr_tensor_ref (value);
      else
        {
          g_autoptr(CrTensor) stripped = strip_leading_ones (value, TRUE, error);

          if (stripped == NULL)
            goto out;
          if (cr_shape_equal (stripped->shape, stripped->ndim, region->shape, region->ndim))
            v = g_steal_pointer (&stripped);
          else if ((v = cr_expand (stripped, region->shape, region->ndim, error)) == NULL)
            goto out;
        }
    }
  else
    {
      gboolean single_mask = w.n_adv == 1 && w.adv[0].index->dtype == CR_DTYPE_BOOL;

      pos = advanced_positions (&w, error);
      if (pos == NULL)
        goto out;
      if (value->dtype != x->dtype && !value->is_wrapped_number
          && !(single_mask && value->numel == 1))
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Index put requires the source and destination dtypes match, got %s for "
                       "the destination and %s for the source.",
                       cr_dtype_scalar_name (x->dtype), cr_dtype_scalar_name (value->dtype));
          goto out;
        }
      v = strip_leading_ones (value, FALSE, error);
      if (v == NULL)
        goto out;
      {
        gint64 bshape[CR_MAX_DIMS];
        int bndim;

        if (!cr_shape_broadcast (v->shape, v->ndim, pos->shape, pos->ndim, bshape, &bndim, NULL)
            || !cr_shape_equal (bshape, bndim, pos->shape, pos->ndim))
          {
            g_autofree char *vs = cr_shape_to_string (v->shape, v->ndim);
            g_autofree char *ps = cr_shape_to_string (pos->shape, pos->ndim);
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "shape mismatch: value tensor of shape %s cannot be broadcast to "
                         "indexing result of shape %s", vs, ps);
            goto out;
          }
      }
    }

  /* x[...] = v writes x itself: PyTorch's copy_ (CopyBackwards). */
  if (!advanced && w.cur_is_x && value->ndim != 0)
    {
      ok = cr_copy_ (x, v, error);
      goto out;
    }

  /* Leaf rules (the version moves after the write). */
  if (!check_leaf (x, !advanced && !w.cur_is_x, error))
    goto out;
  if (!cr_autograd_check_inplace_rules (x, error))
    goto out;

  check[0] = x;
  check[1] = v;
  recording = cr_autograd_should_record (check, 2);

  /* The value may overlap what it overwrites (x[1:] = x[:-1]): read it first. */
  if (shares_storage (v, x) || v->dtype != x->dtype)
    {
      src = v->dtype != x->dtype ? cr_kernel_cast (v, x->dtype, error) : cr_tensor_copy (v, error);
      if (src == NULL)
        goto out;
    }
  else
    src = cr_tensor_ref (v);

  if (!advanced)
    {
      if (!cr_kernel_copy_into (w.cur, src, error))
        goto out;
    }
  else
    {
      if (!cr_kernel_put (w.cur, pos, src, accumulate, error))
        goto out;
    }
  /* Bumped after the write, as PyTorch does: the version observer (the
   * run record) sees the new values. */
  cr_tensor_bump_version (x);

  if (recording)
    {
      g_autoptr(CrTensor) xpos = NULL;

      /* Positions of the written elements within x. */
      if (!advanced)
        xpos = view_positions (w.cur, x, error);
      else if (w.cur_is_x)
        xpos = cr_tensor_ref (pos);
      else
        {
          g_autoptr(CrTensor) cur_in_x = view_positions (w.cur, x, error);
          xpos = cur_in_x != NULL ? cr_kernel_take (cur_in_x, pos, error) : NULL;
        }
      if (xpos == NULL)
        goto out;
      if (!record_write (x, v, xpos, advanced, accumulate, error))
        goto out;
    }
  ok = TRUE;

out:
  index_walk_clear (&w);
  return ok;
}

/* torch.index_put: the put on a copy of x, whose IndexPutBackward0 has x
 * itself for input, as PyTorch's out-of-place op (no CloneBackward0). */
CrTensor *
cr_index_put (CrTensor           *x,
              const CrIndexItem  *items,
              guint               n,
              CrTensor           *value,
              gboolean            accumulate,
              GError            **error)
{
  g_autoptr(CrTensor) out = cr_tensor_copy (x, error);
  CrTensor *inputs[2] = { x, value };
  IndexWalk w;
  gboolean was_enabled, ok;

  if (out == NULL)
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  ok = cr_index_put_ (out, items, n, value, accumulate, error);
  cr_grad_mode_set_enabled (was_enabled);
  if (!ok)
    return NULL;
  if (!cr_autograd_should_record (inputs, 2))
    return g_steal_pointer (&out);

  /* The tensor indices walk x itself: their positions are x's. */
  if (index_walk (&w, x, items, n, FALSE, error))
    {
      g_autoptr(CrTensor) pos = w.n_adv > 0 && w.cur_is_x ? advanced_positions (&w, error)
                                                          : view_positions (w.cur, x, error);

      if (pos != NULL)
        {
          CrNode *node = cr_node_new (CR_OP_INDEX_PUT, inputs, 2, 1);

          cr_node_save (node, 0, pos, FALSE);
          cr_node_args (node)->ints[0] = accumulate;
          cr_ops_attach (out, node);
        }
      else
        g_clear_pointer (&out, cr_tensor_unref);
    }
  else
    g_clear_pointer (&out, cr_tensor_unref);
  index_walk_clear (&w);
  return g_steal_pointer (&out);
}
