/* cr-ops-index-copy.c — Tensor.index_copy / index_copy_ (IndexCopyBackward0)
 * with PyTorch 1.13's checks and messages.
 *
 * The rows of source land at flat positions of self worked out on the host.
 * The backward is differentiable: self's gradient is the incoming one times a
 * constant mask that is 0 where a row was overwritten (index_fill(dim,
 * index, 0)), source's gradient the incoming one taken at the positions
 * (index_select(dim, index)). */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-cuda.h"
#include "cr-grad-mode.h"
#include "cr-error.h"

#include <string.h>

/* INDEX_COPY: inputs (self, source); saved[0] the flat positions written
 * (source's shape), saved[1] the mask of self's shape (1 kept, 0 written). */
static gboolean
index_copy_backward (CrNode          *node,
                     CrTensor *const *grad_outputs,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  SAVED (pos, 0);
  SAVED (keep, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_mul (grad_outputs[0], keep, error));
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_ops_take_flat (grad_outputs[0], pos, error));
  return TRUE;
}

const CrOpInfo cr_op_row_INDEX_COPY = {
  CR_OP_INDEX_COPY, "index_copy", "IndexCopyBackward0", 2, "index=",
  "∂out/∂self = G with the copied rows zeroed,  ∂out/∂source = G.index_select(dim, index)",
  index_copy_backward, NULL
};

static void
index_error (GError     **error,
             GQuark       domain,
             int          code,
             const char  *format,
             ...) G_GNUC_PRINTF (4, 5);

static void
index_error (GError     **error,
             GQuark       domain,
             int          code,
             const char  *format,
             ...)
{
  va_list ap;
  char *message;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, domain, code, "index_copy_(): %s", message);
  g_free (message);
}

/* Checks the arguments and works out the positions (source's shape) and the
 * keep mask (self's shape, self's dtype and device). */
static gboolean
plan (CrTensor   *self,
      int        *dim,
      CrTensor   *index,
      CrTensor   *source,
      CrTensor  **out_pos,
      CrTensor  **out_keep,
      GError    **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) keep = NULL;
  gint64 strides[CR_MAX_DIMS], coord[CR_MAX_DIMS] = { 0, };
  gint64 size, n_index;
  const gint64 *iv;
  gint64 *p;
  double *k;

  if (!cr_ops_wrap_dim (dim, self->ndim, error))
    return FALSE;
  if (index->ndim > 1)
    {
      index_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Index should have dimension 1 or 0 (got %d)", index->ndim);
      return FALSE;
    }
  if (index->dtype != CR_DTYPE_INT64)
    {
      index_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected a long tensor for index, but got %s",
                   cr_dtype_scalar_name (index->dtype));
      return FALSE;
    }
  if (self->dtype != source->dtype)
    {
      index_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "self and source expected to have the same dtype, but got (self) %s and "
                   "(source) %s", cr_dtype_scalar_name (self->dtype),
                   cr_dtype_scalar_name (source->dtype));
      return FALSE;
    }
  n_index = index->numel;
  if (source->ndim != self->ndim
      || (self->ndim > 0 && source->shape[*dim] != n_index))
    {
      gboolean same_rank = source->ndim == self->ndim;

      if (same_rank || self->ndim == 0)
        index_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                     "Number of indices (%" G_GINT64_FORMAT ") should be equal to "
                     "source.size(dim) (%" G_GINT64_FORMAT ")", n_index,
                     source->ndim > 0 ? source->shape[*dim] : 1);
      else
        index_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                     "When source and destination are not scalars, their dimensionality must "
                     "match. Source dimensionality (%d), destination dimensionality (%d)",
                     source->ndim, self->ndim);
      return FALSE;
    }
  for (int d = 0; d < self->ndim; d++)
    if (d != *dim && source->shape[d] != self->shape[d])
      {
        g_autofree char *ss = cr_shape_to_string (self->shape, self->ndim);
        g_autofree char *rs = cr_shape_to_string (source->shape, source->ndim);

        index_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                     "Source/destination tensor must have same slice shapes. Destination slice "
                     "shape: %s at dimension %d and source slice shape: %s at dimension 0.",
                     ss, *dim, rs);
        return FALSE;
      }

  idx = cr_tensor_contiguous (index, error);
  if (idx != NULL && idx->device != CR_DEVICE_CPU)
    {
      CrTensor *host = cr_tensor_to_device (idx, CR_DEVICE_CPU, error);

      cr_tensor_unref (idx);
      idx = host;
    }
  if (idx == NULL)
    return FALSE;
  iv = cr_tensor_data (idx);
  size = self->ndim > 0 ? self->shape[*dim] : 1;
  for (gint64 i = 0; i < n_index; i++)
    if (iv[i] < 0 || iv[i] >= size)
      {
        index_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                     "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with size %"
                     G_GINT64_FORMAT, iv[i], *dim, size);
        return FALSE;
      }

  cr_shape_contiguous_strides (self->shape, self->ndim, strides);
  pos = cr_tensor_new_empty (source->shape, source->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  keep = pos != NULL ? cr_tensor_new_full (self->shape, self->ndim, 1.0, CR_DTYPE_FLOAT64,
                                           CR_DEVICE_CPU, error) : NULL;
  if (keep == NULL)
    return FALSE;
  p = cr_tensor_data (pos);
  k = cr_tensor_data (keep);
  for (gint64 i = 0; i < pos->numel; i++)
    {
      gint64 at = 0;

      for (int d = 0; d < self->ndim; d++)
        at += (d == *dim ? iv[coord[d]] : coord[d]) * strides[d];
      p[i] = at;
      k[at] = 0.0;
      for (int d = source->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < source->shape[d])
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

CrTensor *
cr_index_copy (CrTensor  *self,
               int        dim,
               CrTensor  *index,
               CrTensor  *source,
               GError   **error)
{
  CrTensor *inputs[2] = { self, source };
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) keep = NULL;
  g_autoptr(CrTensor) out = NULL;
  CrNode *node;

  if (!plan (self, &dim, index, source, &pos, &keep, error)
      || (out = cr_tensor_copy (self, error)) == NULL
      || !cr_kernel_put (out, pos, source, FALSE, error))
    return NULL;
  if ((node = cr_ops_record (CR_OP_INDEX_COPY, inputs, 2, out)) != NULL)
    {
      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, keep, FALSE);
    }
  return g_steal_pointer (&out);
}

gboolean
cr_index_copy_ (CrTensor  *self,
                int        dim,
                CrTensor  *index,
                CrTensor  *source,
                GError   **error)
{
  CrTensor *inputs[2] = { self, source };
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) keep = NULL;
  gboolean record;
  CrNode *node = NULL;

  if (!plan (self, &dim, index, source, &pos, &keep, error))
    return FALSE;
  record = cr_autograd_should_record (inputs, 2) && cr_dtype_is_floating (self->dtype);
  if (record && self->view_base != NULL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "index_copy_() on a view that needs a gradient is not supported by "
                           "Chainrule yet");
      return FALSE;
    }
  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  /* The node's edge to self's old history is taken before self is rebased. */
  if (record)
    node = cr_node_new (CR_OP_INDEX_COPY, inputs, 2, 1);
  if (!cr_kernel_put (self, pos, source, FALSE, error))
    {
      cr_node_unref (node);
      return FALSE;
    }
  /* Bumped after the write, as PyTorch does: the version observer (the
   * run record) sees the new values. */
  cr_tensor_bump_version (self);
  if (node != NULL)
    {
      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, keep, FALSE);
      cr_autograd_set_history (self, node, 0);
      cr_node_unref (node);
    }
  return TRUE;
}
