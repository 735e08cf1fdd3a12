/* cr-ops-gather.c — torch.gather, index_select and diag.
 *
 * All three come down to one int64 tensor of flat (row-major) positions: the
 * forward is a take (or, for diag of a vector, a put into zeros) and the
 * backward reuses the differentiable take/scatter of cr-ops-index.c, so that
 * create_graph works without formulas of their own. */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"

#include <string.h>

static CrTensor *take_recording (CrOpId     op,
                                 CrTensor  *x,
                                 CrTensor  *pos,
                                 GError   **error);

/* grad summed into zeros of meta at pos, recording op (SCATTER_ADD or
 * INDEX_ADD) over (the zeros, grad), as PyTorch's scatter_add / index_add
 * of the gradient do. */
static CrTensor *
scatter_recording (CrOpId              op,
                   CrTensor           *grad,
                   CrTensor           *pos,
                   const CrTensorMeta *meta,
                   GError            **error)
{
  g_autoptr(CrTensor) zeros = cr_tensor_new_zeros (meta->shape, meta->ndim, grad->dtype,
                                                   meta->device, error);
  g_autoptr(CrTensor) out = NULL;
  CrTensor *inputs[2];
  CrNode *node;

  if (zeros == NULL || (out = cr_tensor_copy (zeros, error)) == NULL
      || !cr_kernel_put (out, pos, grad, TRUE, error))
    return NULL;
  inputs[0] = zeros;
  inputs[1] = grad;
  if ((node = cr_ops_record (op, inputs, 2, out)) != NULL)
    cr_node_save (node, 0, pos, FALSE);
  return g_steal_pointer (&out);
}

/* GATHER, INDEX_SELECT: saved[0] the positions taken; what PyTorch's node
 * keeps besides, to show it: saved[1] the index, saved[2] gather's self;
 * args.dims[0] the dim. */
static gboolean
gather_backward (CrNode          *node,
                 CrTensor *const *grad_outputs,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  SAVED (pos, 0);

  if (!cr_ops_check_saved_from (node, 1, error))
    return FALSE;

  grad_inputs[0] = scatter_recording (node->op->id == CR_OP_GATHER ? CR_OP_SCATTER_ADD
                                                               : CR_OP_INDEX_ADD,
                                      grad_outputs[0], pos, &node->input_meta[0], error);
  return grad_inputs[0] != NULL;
}

/* SCATTER_ADD, INDEX_ADD: inputs (zeros, src); saved[0] the positions. */
static gboolean
scatter_backward (CrNode          *node,
                  CrTensor *const *grad_outputs,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  SAVED (pos, 0);

  if (cr_ops_needs_grad (node, 0))
    grad_inputs[0] = cr_tensor_ref (grad_outputs[0]);
  if (cr_ops_needs_grad (node, 1))
    {
      grad_inputs[1] = take_recording (node->op->id == CR_OP_SCATTER_ADD ? CR_OP_GATHER
                                                                    : CR_OP_INDEX_SELECT,
                                       grad_outputs[0], g_steal_pointer (&pos), error);
      if (grad_inputs[1] == NULL)
        return FALSE;
    }
  return TRUE;
}

/* DIAG: saved[0] the positions; args.ints[0] TRUE when the input was a
 * vector, args.ints[1] the diagonal. PyTorch's diag_backward is the diag of
 * the gradient unless the input was a non-square matrix. */
static gboolean
diag_backward (CrNode          *node,
               CrTensor *const *grad_outputs,
               CrTensor       **grad_inputs,
               GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  SAVED (pos, 0);

  if (node->args->ints[0] || meta->shape[0] == meta->shape[1])
    grad_inputs[0] = cr_diag (grad_outputs[0], node->args->ints[1], error);
  else
    grad_inputs[0] = cr_ops_scatter_add_flat (grad_outputs[0], pos, meta, error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_GATHER = {
  CR_OP_GATHER, "gather", "GatherBackward0", 1, "gather",
  "∂out/∂x: G scattered (summed) back to the gathered places", gather_backward, NULL
};

const CrOpInfo cr_op_row_INDEX_SELECT = {
  CR_OP_INDEX_SELECT, "index_select", "IndexSelectBackward0", 1, "select",
  "∂out/∂x: G index_added back along dim", gather_backward, NULL
};

const CrOpInfo cr_op_row_SCATTER_ADD = {
  CR_OP_SCATTER_ADD, "scatter_add", "ScatterAddBackward0", 2, "scatter+",
  "∂out/∂x = G,  ∂out/∂src = G gathered at index", scatter_backward, NULL
};

const CrOpInfo cr_op_row_INDEX_ADD = {
  CR_OP_INDEX_ADD, "index_add", "IndexAddBackward0", 2, "index+",
  "∂out/∂x = G,  ∂out/∂src = G.index_select(dim, index)", scatter_backward, NULL
};

const CrOpInfo cr_op_row_DIAG = {
  CR_OP_DIAG, "diag", "DiagBackward0", 1, "diag",
  "∂out/∂x: the diagonal of G (or G placed on the diagonal)", diag_backward, NULL
};

/* The take of x at pos, recording op with pos saved. Takes pos. */
static CrTensor *
take_recording (CrOpId     op,
                CrTensor  *x,
                CrTensor  *pos,
                GError   **error)
{
  g_autoptr(CrTensor) owned = cr_ops_positions_to (pos, x->device, error);
  CrTensor *out = owned != NULL ? cr_kernel_take (x, owned, error) : NULL;
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    cr_node_save (node, 0, owned, FALSE);
  return out;
}

static void
row_major_strides (const CrTensor *x,
                   gint64         *strides)
{
  gint64 s = 1;

  for (int d = x->ndim - 1; d >= 0; d--)
    {
      strides[d] = s;
      s *= x->shape[d];
    }
}

/* index as a contiguous int64 tensor (a new ref). */
/* index as contiguous int64 on the host, where the positions are worked out
 * (and bounds checked): an index on a device is copied over (a sync). */
static CrTensor *
int64_contiguous (CrTensor  *index,
                  GError   **error)
{
  g_autoptr(CrTensor) c = NULL;

  if (index->dtype != CR_DTYPE_INT64)
    c = cr_kernel_cast (index, CR_DTYPE_INT64, error);
  else
    c = cr_contiguous (index, error);
  if (c == NULL || c->device == CR_DEVICE_CPU)
    return g_steal_pointer (&c);
  return cr_tensor_to_device (c, CR_DEVICE_CPU, error);
}

static const char *
shape_text (GString        *buf,
            const CrTensor *t)
{
  g_string_truncate (buf, 0);
  g_string_append_c (buf, '[');
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf (buf, "%s%" G_GINT64_FORMAT, d > 0 ? ", " : "", t->shape[d]);
  g_string_append_c (buf, ']');
  return buf->str;
}

/* out's node keeps what PyTorch's GatherBackward0 / IndexSelectBackward0
 * keep, read by grad_fn._saved_* and the run record: the index, gather's
 * self and the dim. Returns out. */
static CrTensor *
keep_as_pytorch (CrTensor  *out,
                 CrOpId     op,
                 CrTensor  *x,
                 int        dim,
                 CrTensor  *index)
{
  CrNode *node = out != NULL ? out->grad_fn : NULL;

  if (node == NULL || node->op->id != op)
    return out;
  cr_node_save (node, 1, index, FALSE);
  if (op == CR_OP_GATHER)
    cr_node_save (node, 2, x, FALSE);
  cr_node_args (node)->dims[0] = dim;
  cr_node_args (node)->n_dims = 1;
  return out;
}

CrTensor *
cr_gather (CrTensor  *x,
           int        dim,
           CrTensor  *index,
           GError   **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) pos = NULL;
  gint64 strides[CR_MAX_DIMS], coord[CR_MAX_DIMS] = { 0, };
  const gint64 *iv;
  gint64 *p;
  int xdim = MAX (x->ndim, 1), idim = MAX (index->ndim, 1);

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (index->dtype != CR_DTYPE_INT64)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "gather(): Expected dtype int64 for index");
      return NULL;
    }
  if (xdim != idim)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Index tensor must have the same number of dimensions as input "
                           "tensor");
      return NULL;
    }
  for (int d = 0; d < x->ndim && index->ndim == x->ndim; d++)
    if (d != dim && index->shape[d] > x->shape[d])
      {
        g_autoptr(GString) a = g_string_new (NULL);
        g_autoptr(GString) b = g_string_new (NULL);

        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Size does not match at dimension %d expected index %s to be smaller "
                     "than self %s apart from dimension %d",
                     d, shape_text (a, index), shape_text (b, x), dim);
        return NULL;
      }

  idx = int64_contiguous (index, error);
  if (idx == NULL)
    return NULL;
  pos = cr_tensor_new_empty (index->shape, index->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return NULL;
  row_major_strides (x, strides);
  iv = cr_tensor_data (idx);
  p = cr_tensor_data (pos);
  for (gint64 i = 0; i < idx->numel; i++)
    {
      gint64 off = 0, size = x->ndim > 0 ? x->shape[dim] : 1;

      if (iv[i] < 0 || iv[i] >= size)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with "
                       "size %" G_GINT64_FORMAT, iv[i], dim, size);
          return NULL;
        }
      for (int d = 0; d < x->ndim; d++)
        off += (d == dim ? iv[i] : coord[d]) * strides[d];
      p[i] = off;
      for (int d = index->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < index->shape[d])
            break;
          coord[d] = 0;
        }
    }
  return keep_as_pytorch (take_recording (CR_OP_GATHER, x, g_steal_pointer (&pos), error),
                          CR_OP_GATHER, x, dim, index);
}

CrTensor *
cr_index_select (CrTensor  *x,
                 int        dim,
                 CrTensor  *index,
                 GError   **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) pos = NULL;
  gint64 shape[CR_MAX_DIMS], outer = 1, inner = 1, size, n;
  const gint64 *iv;
  gint64 *p;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (index->ndim > 1)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "index_select(): Index is supposed to be a vector");
      return NULL;
    }
  if (index->dtype != CR_DTYPE_INT64 && index->dtype != CR_DTYPE_INT32)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "index_select(): Expected dtype int32 or int64 for index");
      return NULL;
    }
  idx = int64_contiguous (index, error);
  if (idx == NULL)
    return NULL;
  iv = cr_tensor_data (idx);
  n = idx->numel;
  size = x->ndim > 0 ? x->shape[dim] : 1;
  for (gint64 i = 0; i < n; i++)
    {
      if (iv[i] < 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "INDICES element is out of DATA bounds, id=%" G_GINT64_FORMAT
                       " axis_dim=%" G_GINT64_FORMAT, iv[i], size);
          return NULL;
        }
      if (iv[i] >= size)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                               "index out of range in self");
          return NULL;
        }
    }

  for (int d = 0; d < x->ndim; d++)
    {
      shape[d] = d == dim ? n : x->shape[d];
      if (d < dim)
        outer *= x->shape[d];
      else if (d > dim)
        inner *= x->shape[d];
    }
  pos = cr_tensor_new_empty (shape, x->ndim > 0 ? x->ndim : (index->ndim > 0 ? 1 : 0),
                             CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (x->ndim == 0 && pos != NULL && index->ndim > 0)
    {
      /* A 0-d input selects into a vector of the index's length. */
      g_clear_pointer (&pos, cr_tensor_unref);
      pos = cr_tensor_new_empty (&n, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
    }
  if (pos == NULL)
    return NULL;
  p = cr_tensor_data (pos);
  for (gint64 o = 0; o < outer; o++)
    for (gint64 i = 0; i < n; i++)
      for (gint64 j = 0; j < inner; j++)
        *p++ = (o * size + iv[i]) * inner + j;
  return keep_as_pytorch (take_recording (CR_OP_INDEX_SELECT, x, g_steal_pointer (&pos), error),
                          CR_OP_INDEX_SELECT, x, dim, index);
}

CrTensor *
cr_diag (CrTensor  *x,
         gint64     diagonal,
         GError   **error)
{
  g_autoptr(CrTensor) pos = NULL;
  gint64 *p;
  gint64 row0 = MAX (-diagonal, 0), col0 = MAX (diagonal, 0);

  if (x->ndim == 1)
    {
      gint64 n = x->shape[0] + ABS (diagonal);
      gint64 shape[2] = { n, n };
      g_autoptr(CrTensor) out = NULL;
      CrNode *node;

      pos = cr_tensor_new_empty (x->shape, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
      if (pos == NULL)
        return NULL;
      p = cr_tensor_data (pos);
      for (gint64 i = 0; i < x->shape[0]; i++)
        p[i] = (i + row0) * n + i + col0;
      pos = cr_ops_positions_to (g_steal_pointer (&pos), x->device, error);
      if (pos == NULL)
        return NULL;
      out = cr_tensor_new_zeros (shape, 2, x->dtype, x->device, error);
      if (out == NULL || !cr_kernel_put (out, pos, x, FALSE, error))
        return NULL;
      if ((node = cr_ops_record (CR_OP_DIAG, &x, 1, out)) != NULL)
        {
          cr_node_save (node, 0, pos, FALSE);
          cr_node_args (node)->ints[0] = TRUE;
          cr_node_args (node)->ints[1] = diagonal;
        }
      return g_steal_pointer (&out);
    }
  if (x->ndim == 2)
    {
      gint64 n = MIN (x->shape[0] - row0, x->shape[1] - col0);
      CrTensor *out;

      if (n < 0)
        {
          /* PyTorch 1.13 computes a negative length and fails on it. */
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "numel: integer multiplication overflow");
          return NULL;
        }
      pos = cr_tensor_new_empty (&n, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
      if (pos == NULL)
        return NULL;
      p = cr_tensor_data (pos);
      for (gint64 i = 0; i < n; i++)
        p[i] = (i + row0) * x->shape[1] + i + col0;
      out = take_recording (CR_OP_DIAG, x, g_steal_pointer (&pos), error);
      if (out != NULL && out->grad_fn != NULL)
        cr_node_args (out->grad_fn)->ints[1] = diagonal;
      return out;
    }
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "matrix or a vector expected");
  return NULL;
}

/* ---- take_along_dim ------------------------------------------------------ */

CrTensor *
cr_take_along_dim (CrTensor  *x,
                   CrTensor  *indices,
                   gboolean   has_dim,
                   int        dim,
                   GError   **error)
{
  gint64 sizes[CR_MAX_DIMS], shape[CR_MAX_DIMS];
  int ndim;
  g_autoptr(CrTensor) xb = NULL;
  g_autoptr(CrTensor) ib = NULL;

  if (!has_dim)
    {
      /* The flattened input at the flattened indices. */
      gint64 flat = -1;
      g_autoptr(CrTensor) xs = cr_view (x, &flat, 1, error);
      g_autoptr(CrTensor) is = xs != NULL ? cr_reshape (indices, &flat, 1, error) : NULL;

      return is != NULL ? cr_gather (xs, 0, is, error) : NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (x->ndim != indices->ndim)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "torch.take_along_dim(): input and indices should have the same number of "
                   "dimensions, but got %d dimensions for input, and %d dimensions for indices",
                   x->ndim, indices->ndim);
      return NULL;
    }
  /* Both broadcast but along dim, each through expand (PyTorch's
   * broadcast_to), then gathered. */
  memcpy (sizes, x->shape, sizeof (gint64) * x->ndim);
  if (x->ndim > 0)
    sizes[dim] = indices->shape[dim];
  if (!cr_shape_broadcast (sizes, x->ndim, indices->shape, indices->ndim, shape, &ndim, error)
      || (ib = cr_expand (indices, shape, ndim, error)) == NULL)
    return NULL;
  if (ndim > 0)
    shape[dim] = x->shape[dim];
  if ((xb = cr_expand (x, shape, ndim, error)) == NULL)
    return NULL;
  return cr_gather (xb, dim, ib, error);
}
