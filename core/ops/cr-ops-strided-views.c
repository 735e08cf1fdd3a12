/* cr-ops-strided-views.c — views made by choosing strides:
 * Tensor.unfold(dimension, size, step) (UnfoldBackward0: sliding windows,
 * a ViT's patches) and Tensor.as_strided(size, stride, storage_offset)
 * (AsStridedBackward0).
 *
 * Both share the input's storage. Their backward puts each element's
 * gradient back at the input element it views, summing where windows
 * overlap: the view's positions in the input (row-major logical indices,
 * worked out on the host when the node is made) and a differentiable
 * scatter-add. */
#include "cr-ops-private.h"

#include <string.h>

#include "cr-error.h"

/* The positions, as an int64 tensor of shape, of the elements a view with
 * these strides and offset reads, in a space whose flat index is the
 * position; moved to device. */
static CrTensor *
positions_of (const gint64  *shape,
              int            ndim,
              const gint64  *strides,
              gint64         offset,
              CrDeviceType   device,
              GError       **error)
{
  g_autoptr(CrTensor) pos = cr_tensor_new_empty (shape, ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  gint64 idx[CR_MAX_DIMS] = { 0 };
  gint64 *out;
  gint64 at = offset;

  if (pos == NULL)
    return NULL;
  out = cr_tensor_data (pos);
  for (gint64 i = 0; i < pos->numel; i++)
    {
      out[i] = at;
      for (int d = ndim - 1; d >= 0; d--)
        {
          idx[d]++;
          at += strides[d];
          if (idx[d] < shape[d])
            break;
          at -= strides[d] * shape[d];
          idx[d] = 0;
        }
    }
  return cr_ops_positions_to (g_steal_pointer (&pos), device, error);
}

/* UNFOLD, AS_STRIDED: saved[0] the positions in the input. */
static gboolean
strided_view_backward (CrNode          *node,
                       CrTensor *const *grads,
                       CrTensor       **grad_inputs,
                       GError         **error)
{
  SAVED (pos, 0);

  SET_GRAD (0, cr_ops_scatter_add_flat (grads[0], pos, &node->input_meta[0], error));
  return TRUE;
}

/* args.dims[0]: dimension; args.ints[0], ints[1]: size, step. */
const CrOpInfo cr_op_row_UNFOLD = {
  CR_OP_UNFOLD, "unfold", "UnfoldBackward0", 1, "windows",
  "∂out/∂x: each window's gradient added back where the window reads x",
  strided_view_backward, NULL
};

CrTensor *
cr_unfold (CrTensor  *x,
           int        dim,
           gint64     size,
           gint64     step,
           GError   **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS], logical[CR_MAX_DIMS];
  gint64 length;
  int ndim = x->ndim + 1;
  CrTensor *out;
  CrNode *node;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  length = x->ndim == 0 ? 1 : x->shape[dim];
  if (size > length)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "maximum size for tensor at dimension %d is %" G_GINT64_FORMAT
                   " but size is %" G_GINT64_FORMAT, dim, length, size);
      return NULL;
    }
  if (step <= 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "step is %" G_GINT64_FORMAT " but must be > 0", step);
      return NULL;
    }
  if (ndim > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "unfold: a tensor of %d dimensions has no room for one more", x->ndim);
      return NULL;
    }
  /* dim holds the windows; a new last dim the elements of each. A 0-d x
   * is a 1-element row. */
  cr_shape_contiguous_strides (x->shape, x->ndim, logical);
  memcpy (shape, x->shape, sizeof (gint64) * x->ndim);
  memcpy (strides, x->strides, sizeof (gint64) * x->ndim);
  if (x->ndim == 0)
    {
      ndim = 1;
      shape[0] = size;
      strides[0] = 1;
      logical[0] = 1;
    }
  else
    {
      shape[dim] = (length - size) / step + 1;
      shape[ndim - 1] = size;
      strides[ndim - 1] = strides[dim];
      strides[dim] *= step;
      logical[ndim - 1] = logical[dim];
      logical[dim] *= step;
    }
  out = cr_ops_make_view (x, shape, ndim, strides, x->offset);
  if ((node = cr_ops_record (CR_OP_UNFOLD, &x, 1, out)) != NULL)
    {
      g_autoptr(CrTensor) pos = positions_of (shape, ndim, logical, 0, x->device, error);

      if (pos == NULL)
        {
          cr_tensor_unref (out);
          return NULL;
        }
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->ints[0] = size;
      cr_node_args (node)->ints[1] = step;
      cr_node_save (node, 0, pos, FALSE);
    }
  return out;
}

CrTensor *
cr_as_strided (CrTensor      *x,
               const gint64  *shape,
               int            ndim,
               const gint64  *strides,
               gboolean       has_offset,
               gint64         offset,
               GError       **error)
{
  gint64 itemsize = (gint64) cr_dtype_size (x->dtype);
  gint64 storage_size = (gint64) x->storage->nbytes / itemsize;
  gint64 numel, last = 0;
  CrTensor *out;
  CrNode *node;

  if (!has_offset)
    offset = x->offset;
  if (!cr_shape_numel_checked (shape, ndim, &numel, error))
    return NULL;
  for (int d = 0; d < ndim; d++)
    {
      if (strides[d] < 0)
        {
          g_autofree char *steps = cr_shape_to_string (strides, ndim);

          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "as_strided: Negative strides are not supported at the moment, got "
                       "strides: %s", steps);
          return NULL;
        }
      last += (shape[d] - 1) * strides[d];
    }
  if (numel > 0 && (offset < 0 || offset + last + 1 > storage_size))
    {
      g_autofree char *sizes = cr_shape_to_string (shape, ndim);
      g_autofree char *steps = cr_shape_to_string (strides, ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "setStorage: sizes %s, strides %s, storage offset %" G_GINT64_FORMAT
                   ", and itemsize %" G_GINT64_FORMAT " requiring a storage size of %"
                   G_GINT64_FORMAT " are out of bounds for storage of size %" G_GINT64_FORMAT,
                   sizes, steps, offset, itemsize, (offset + last + 1) * itemsize,
                   storage_size * itemsize);
      return NULL;
    }
  if (cr_autograd_should_record (&x, 1) && numel > 0
      && (!cr_tensor_is_contiguous (x) || offset < x->offset
          || offset + last >= x->offset + x->numel))
    {
      /* The positions below are x's own elements only when x is laid out
       * row-major in its storage and the view stays inside it. */
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "as_strided outside a contiguous input that requires grad is not "
                           "supported by Chainrule yet");
      return NULL;
    }
  out = cr_ops_make_view (x, shape, ndim, strides, offset);
  if ((node = cr_ops_record (CR_OP_AS_STRIDED, &x, 1, out)) != NULL)
    {
      g_autoptr(CrTensor) pos = positions_of (shape, ndim, strides, offset - x->offset,
                                              x->device, error);

      if (pos == NULL)
        {
          cr_tensor_unref (out);
          return NULL;
        }
      cr_node_save (node, 0, pos, FALSE);
    }
  return out;
}
