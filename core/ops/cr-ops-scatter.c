/* cr-ops-scatter.c — Tensor.scatter(_) and scatter_add(_) (one-hot labels,
 * `zeros.scatter_(1, y.unsqueeze(1), 1.0)`), with PyTorch 1.13's checks.
 *
 * Element i of index (at coordinates c) sends src[c] to self at c with
 * c[dim] replaced by index[c]: flat positions of self worked out on the
 * host, as for gather. The backward is differentiable: self's gradient is
 * the incoming one times a constant mask that is 0 where scatter wrote
 * (grad.scatter(dim, index, 0)), or the incoming one for scatter_add; src's
 * gradient is the incoming one taken at the positions (grad.gather). */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"

/* SCATTER: inputs (self, src); SCATTER_VALUE: input self. saved[0] the
 * positions (index's shape), saved[1] the mask of self's shape. */
static gboolean
scatter_backward (CrNode          *node,
                  CrTensor *const *grads,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  SAVED (pos, 0);
  SAVED (keep, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_mul (grads[0], keep, error));
  if (node->op->id == CR_OP_SCATTER && cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_ops_take_flat (grads[0], pos, error));
  return TRUE;
}

const CrOpInfo cr_op_row_SCATTER = {
  CR_OP_SCATTER, "scatter", "ScatterBackward0", 2, "scatter",
  "∂out/∂self = G with the written places zeroed,  ∂out/∂src = G gathered at index",
  scatter_backward, NULL
};

const CrOpInfo cr_op_row_SCATTER_VALUE = {
  CR_OP_SCATTER_VALUE, "scatter", "ScatterBackward1", 1, "scatter",
  "∂out/∂self = G with the written places zeroed", scatter_backward, NULL
};

static void
shape_text (GString        *buf,
            const CrTensor *t)
{
  g_string_append_c (buf, '[');
  for (int d = 0; d < t->ndim; d++)
    g_string_append_printf (buf, "%s%" G_GINT64_FORMAT, d > 0 ? ", " : "", t->shape[d]);
  g_string_append_c (buf, ']');
}

/* Checks the arguments (src may be NULL: a value is scattered) and works out
 * the positions (index's shape, on self's device) and the keep mask (self's
 * shape, dtype and device). */
static gboolean
plan (const char *fname,
      CrTensor   *self,
      int        *dim,
      CrTensor   *index,
      CrTensor   *src,
      CrTensor  **out_pos,
      CrTensor  **out_keep,
      GError    **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) keep = NULL;
  gint64 strides[CR_MAX_DIMS], coord[CR_MAX_DIMS] = { 0, };
  const gint64 *iv;
  gint64 *p;
  double *k;
  gint64 size;

  if (!cr_ops_wrap_dim (dim, self->ndim, error))
    return FALSE;
  if (index->dtype != CR_DTYPE_INT64)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): Expected dtype int64 for index", fname);
      return FALSE;
    }
  if (MAX (index->ndim, 1) != MAX (self->ndim, 1)
      || (src != NULL && MAX (index->ndim, 1) != MAX (src->ndim, 1)))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Index tensor must have the same number of dimensions as self tensor");
      return FALSE;
    }
  if (src != NULL && src->dtype != self->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): Expected self.dtype to be equal to src.dtype", fname);
      return FALSE;
    }
  for (int d = 0; d < index->ndim && index->ndim == self->ndim; d++)
    if ((d != *dim && index->shape[d] > self->shape[d])
        || (src != NULL && index->shape[d] > src->shape[d]))
      {
        g_autoptr(GString) text = g_string_new ("Expected index ");

        shape_text (text, index);
        g_string_append (text, " to be smaller than self ");
        shape_text (text, self);
        g_string_append_printf (text, " apart from dimension %d", *dim);
        if (src != NULL)
          {
            g_string_append (text, " and to be smaller size than src ");
            shape_text (text, src);
          }
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, text->str);
        return FALSE;
      }

  idx = index->device == CR_DEVICE_CPU ? cr_tensor_contiguous (index, error)
                                       : cr_tensor_to_device (index, CR_DEVICE_CPU, error);
  if (idx == NULL)
    return FALSE;
  iv = cr_tensor_data (idx);
  size = self->ndim > 0 ? self->shape[*dim] : 1;
  cr_shape_contiguous_strides (self->shape, self->ndim, strides);
  pos = cr_tensor_new_empty (index->shape, index->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  keep = pos != NULL ? cr_tensor_new_full (self->shape, self->ndim, 1.0, CR_DTYPE_FLOAT64,
                                           CR_DEVICE_CPU, error) : NULL;
  if (keep == NULL)
    return FALSE;
  p = cr_tensor_data (pos);
  k = cr_tensor_data (keep);
  for (gint64 i = 0; i < idx->numel; i++)
    {
      gint64 at = 0;

      if (iv[i] < 0 || iv[i] >= size)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with "
                       "size %" G_GINT64_FORMAT, iv[i], *dim, size);
          return FALSE;
        }
      for (int d = 0; d < self->ndim; d++)
        at += (d == *dim ? iv[i] : coord[d]) * strides[d];
      p[i] = at;
      k[at] = 0.0;
      for (int d = index->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < index->shape[d])
            break;
          coord[d] = 0;
        }
    }
  if (self->dtype != CR_DTYPE_FLOAT64 || self->device != CR_DEVICE_CPU)
    {
      CrTensor *cast = cr_kernel_cast (keep, self->dtype, error);
      CrTensor *moved = cast != NULL ? cr_tensor_to_device (cast, self->device, error) : NULL;

      cr_tensor_unref (cast);
      cr_tensor_unref (keep);
      if ((keep = moved) == NULL)
        return FALSE;
    }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), self->device, error);
  if (pos == NULL)
    return FALSE;
  *out_pos = g_steal_pointer (&pos);
  *out_keep = g_steal_pointer (&keep);
  return TRUE;
}

/* The part of src that index covers (src itself when they agree): a
 * differentiable slice src[:n0, :n1, ...]. */
static CrTensor *
src_part (CrTensor  *src,
          CrTensor  *index,
          GError   **error)
{
  CrIndexItem items[CR_MAX_DIMS];
  gboolean smaller = FALSE;

  for (int d = 0; d < index->ndim; d++)
    {
      items[d] = (CrIndexItem) { .kind = CR_INDEX_SLICE, .stop = index->shape[d],
                                 .has_stop = TRUE };
      smaller |= index->shape[d] < src->shape[d];
    }
  if (!smaller)
    return cr_tensor_ref (src);
  return cr_index_get (src, items, (guint) index->ndim, error);
}

/* The values written: src's part, or value as a tensor of index's shape. */
static CrTensor *
written_values (CrTensor  *self,
                CrTensor  *index,
                CrTensor  *src,
                double     value,
                GError   **error)
{
  if (src != NULL)
    return src_part (src, index, error);
  return cr_tensor_new_full (index->shape, index->ndim, value, self->dtype, self->device, error);
}

/* values written (or added) into self at pos, out of place or in place
 * (returns self's new ref then), recording op over (self, values) or (self)
 * with pos in saved slot 0 and keep (NULL for an add) in slot 1; number:
 * the Python number values were made of (scatter's value), NULL when they
 * came as a tensor. */
static CrTensor *
write_at (CrOpId      op,
          const char *fname,
          CrTensor   *self,
          CrTensor   *pos,
          CrTensor   *keep,
          CrTensor   *values,
          guint       n_inputs,
          const double *number,
          gboolean    add,
          gboolean    inplace,
          GError    **error)
{
  g_autoptr(CrTensor) out = NULL;
  CrTensor *inputs[2] = { self, values };
  CrNode *node = NULL;

  if (!inplace)
    {
      if ((out = cr_tensor_copy (self, error)) == NULL
          || !cr_kernel_put (out, pos, values, add, error))
        return NULL;
      node = cr_ops_record (op, inputs, n_inputs, out);
    }
  else
    {
      gboolean record = cr_autograd_should_record (inputs, n_inputs)
                        && cr_dtype_is_floating (self->dtype);

      if (record && self->view_base != NULL)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                       "%s_() on a view that needs a gradient is not supported by Chainrule "
                       "yet", fname);
          return NULL;
        }
      if (!cr_autograd_check_inplace_rules (self, error))
        return NULL;
      /* The node's edge to self's old history is taken before the write. */
      if (record)
        node = cr_node_new (op, inputs, n_inputs, 1);
      if (!cr_kernel_put (self, pos, values, add, error))
        {
          cr_node_unref (node);
          return NULL;
        }
      /* Bumped after the write, as PyTorch does: the version observer
       * (the run record) sees the new values. */
      cr_tensor_bump_version (self);
      out = cr_tensor_ref (self);
    }
  if (node != NULL)
    {
      cr_node_save (node, 0, pos, FALSE);
      if (keep != NULL)
        cr_node_save (node, 1, keep, FALSE);
      /* Written as self's dtype: an int only into an integer tensor. */
      if (number != NULL)
        cr_ops_note_number (node, *number, !cr_dtype_is_floating (self->dtype));
      if (inplace)
        {
          cr_autograd_set_history (self, node, 0);
          cr_node_unref (node);
        }
    }
  return g_steal_pointer (&out);
}

/* scatter / scatter_add of src (or of value when src is NULL), out of place
 * or into self (inplace; returns self's new ref then). */
CrTensor *
cr_scatter_full (CrTensor   *self,
                 int         dim,
                 CrTensor   *index,
                 CrTensor   *src,
                 double      value,
                 gboolean    add,
                 gboolean    inplace,
                 GError    **error)
{
  const char *fname = add ? "scatter_add" : "scatter";
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) keep = NULL;
  g_autoptr(CrTensor) values = NULL;
  CrOpId op = add ? CR_OP_SCATTER_ADD : src != NULL ? CR_OP_SCATTER : CR_OP_SCATTER_VALUE;

  if (!plan (fname, self, &dim, index, src, &pos, &keep, error)
      || (values = written_values (self, index, src, value, error)) == NULL)
    return NULL;
  return write_at (op, fname, self, pos, add ? NULL : keep, values, src != NULL ? 2 : 1,
                   src != NULL ? NULL : &value, add, inplace, error);
}

/* index_add(dim, index, source): source's slice i added into self's slice
 * index[i] along dim (IndexAddBackward0; alpha, when not 1, a MulBackward0
 * on source first). */
CrTensor *
cr_index_add_full (CrTensor   *self,
                   int         dim,
                   CrTensor   *index,
                   CrTensor   *source,
                   double      alpha,
                   gboolean    inplace,
                   GError    **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) scaled = NULL;
  gint64 strides[CR_MAX_DIMS], coord[CR_MAX_DIMS] = { 0, };
  gint64 n_index, size, *p;
  const gint64 *iv;

  if (!cr_ops_wrap_dim (&dim, self->ndim, error))
    return NULL;
  if ((index->dtype != CR_DTYPE_INT64 && index->dtype != CR_DTYPE_INT32) || index->ndim > 1)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           index->ndim > 1 ? "index_add_(): Index is supposed to be a vector"
                                           : "index_add_(): Expected dtype int32/int64 for index");
      return NULL;
    }
  n_index = index->numel;
  if (n_index != (source->ndim == 0 ? 1 : source->shape[MIN (dim, source->ndim - 1)])
      || MAX (source->ndim, 1) != MAX (self->ndim, 1))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "index_add_(): Number of indices (%" G_GINT64_FORMAT ") should be equal to "
                   "source.size(dim): (%" G_GINT64_FORMAT "), for dim: %d", n_index,
                   source->ndim == 0 ? 1 : source->shape[MIN (dim, source->ndim - 1)], dim);
      return NULL;
    }
  for (int d = 0; d < self->ndim; d++)
    if (d != dim && source->shape[d] != self->shape[d])
      {
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "source tensor shape must match self tensor shape, excluding the "
                     "specified dimension. Got self.shape = [%" G_GINT64_FORMAT "] "
                     "source.shape = [%" G_GINT64_FORMAT "]", self->shape[d], source->shape[d]);
        return NULL;
      }
  if (source->dtype != self->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "index_add_(): self (%s) and source (%s) must have the same scalar type",
                   cr_dtype_scalar_name (self->dtype), cr_dtype_scalar_name (source->dtype));
      return NULL;
    }
  /* int32 indices are read as int64, on the host. */
  idx = index->dtype == CR_DTYPE_INT32 ? cr_kernel_cast (index, CR_DTYPE_INT64, error)
                                       : cr_tensor_contiguous (index, error);
  if (idx != NULL && idx->device != CR_DEVICE_CPU)
    {
      CrTensor *host = cr_tensor_to_device (idx, CR_DEVICE_CPU, error);

      cr_tensor_unref (idx);
      idx = host;
    }
  if (idx == NULL)
    return NULL;
  iv = cr_tensor_data (idx);
  size = self->ndim > 0 ? self->shape[dim] : 1;
  for (gint64 i = 0; i < n_index; i++)
    if (iv[i] < 0 || iv[i] >= size)
      {
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                             "index out of range in self");
        return NULL;
      }
  cr_shape_contiguous_strides (self->shape, self->ndim, strides);
  pos = cr_tensor_new_empty (source->shape, source->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return NULL;
  p = cr_tensor_data (pos);
  for (gint64 i = 0; i < pos->numel; i++)
    {
      gint64 at = 0;

      for (int d = 0; d < self->ndim; d++)
        at += (d == dim ? iv[coord[d]] : coord[d]) * strides[d];
      p[i] = self->ndim == 0 ? 0 : at;
      for (int d = source->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < source->shape[d])
            break;
          coord[d] = 0;
        }
    }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), self->device, error);
  if (pos == NULL)
    return NULL;
  if (alpha != 1.0)
    {
      g_autoptr(CrTensor) factor = cr_ops_wrap_number (alpha, FALSE);

      if ((scaled = cr_mul (source, factor, error)) == NULL)
        return NULL;
    }
  return write_at (CR_OP_INDEX_ADD, "index_add", self, pos, NULL,
                   scaled != NULL ? scaled : source, 2, NULL, TRUE, inplace, error);
}
