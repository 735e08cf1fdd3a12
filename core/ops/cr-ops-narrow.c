/* cr-ops-narrow.c — torch.narrow and torch.select (views through basic
 * indexing: SliceBackward0, SelectBackward0) and torch.diff, PyTorch 1.13's
 * composite of narrows and subtractions (SubBackward0 over two
 * SliceBackward0), with their checks and messages. */
#include "cr-ops-private.h"

#include <string.h>

#include "cr-error.h"

/* x[..., start:stop, ...] or x[..., index, ...] along dim. */
static CrTensor *
index_along (CrTensor     *x,
             int           dim,
             CrIndexKind   kind,
             gint64        start,
             gint64        stop,
             GError      **error)
{
  CrIndexItem items[CR_MAX_DIMS];

  memset (items, 0, sizeof items);
  for (int d = 0; d < dim; d++)
    items[d].kind = CR_INDEX_SLICE;
  items[dim].kind = kind;
  items[dim].value = start;
  items[dim].start = start;
  items[dim].stop = stop;
  items[dim].has_start = items[dim].has_stop = kind == CR_INDEX_SLICE;
  return cr_index_get (x, items, dim + 1, error);
}

CrTensor *
cr_narrow (CrTensor  *x,
           int        dim,
           gint64     start,
           gint64     length,
           GError   **error)
{
  gint64 size;

  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "narrow() cannot be applied to a 0-dim tensor.");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  size = x->shape[dim];
  /* start == size is a valid empty narrow, though not a valid "dim". */
  if (start != size)
    {
      int wrapped = (int) CLAMP (start, G_MININT, G_MAXINT);
      if (size > G_MAXINT || !cr_ops_wrap_dim (&wrapped, (int) size, error))
        return NULL;
      start = wrapped;
    }
  if (length < 0 || start > size - length)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "start (%" G_GINT64_FORMAT ") + length (%" G_GINT64_FORMAT
                   ") exceeds dimension size (%" G_GINT64_FORMAT ").", start, length, size);
      return NULL;
    }
  return index_along (x, dim, CR_INDEX_SLICE, start, start + length, error);
}

CrTensor *
cr_select_index (CrTensor  *x,
                 int        dim,
                 gint64     index,
                 GError   **error)
{
  gint64 size;

  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "select() cannot be applied to a 0-dim tensor.");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  size = x->shape[dim];
  if (index < -size || index >= size)
    {
      g_autofree char *sizes = cr_shape_to_string (x->shape, x->ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "select(): index %" G_GINT64_FORMAT " out of range for tensor of size %s at "
                   "dimension %d", index, sizes, dim);
      return NULL;
    }
  return index_along (x, dim, CR_INDEX_INT, index < 0 ? index + size : index, 0, error);
}

/* PyTorch's diff_helper: n times the difference of neighbours along dim
 * (bool: their xor); n == 0 a copy (CopyBackwards), n < 0 the input. */
static CrTensor *
diff_steps (CrTensor  *x,
            gint64     n,
            int        dim,
            GError   **error)
{
  gint64 out_len;
  CrTensor *result;

  if (n == 0)
    {
      CrTensor *copy = cr_ops_zeros_meta (&(CrTensorMeta) { x->shape, x->ndim, x->dtype,
                                                            x->device }, error);
      if (copy != NULL && !cr_copy_ (copy, x, error))
        g_clear_pointer (&copy, cr_tensor_unref);
      return copy;
    }
  out_len = x->shape[dim] - 1;
  result = cr_tensor_ref (x);
  n = MIN (n, x->shape[dim]);
  for (gint64 i = 0; i < n; i++, out_len--)
    {
      g_autoptr(CrTensor) later = cr_narrow (result, dim, 1, out_len, error);
      g_autoptr(CrTensor) earlier = later != NULL ? cr_narrow (result, dim, 0, out_len, error)
                                                  : NULL;
      CrTensor *next = NULL;

      if (earlier != NULL)
        next = x->dtype == CR_DTYPE_BOOL ? cr_binary_nograd (CR_BINARY_NE, later, earlier, error)
                                         : cr_sub (later, earlier, error);
      cr_tensor_unref (result);
      if ((result = next) == NULL)
        return NULL;
    }
  return result;
}

CrTensor *
cr_diff (CrTensor  *x,
         gint64     n,
         int        dim,
         CrTensor  *prepend,
         CrTensor  *append,
         GError   **error)
{
  CrTensor *parts[3];
  guint n_parts = 0;
  g_autoptr(CrTensor) joined = NULL;

  if (x->ndim < 1)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "diff expects input to be at least one-dimensional");
      return NULL;
    }
  if ((prepend != NULL && prepend->ndim != x->ndim) || (append != NULL && append->ndim != x->ndim))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "diff expects prepend or append to be the same dimension as input");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if ((prepend == NULL && append == NULL) || n == 0)
    return diff_steps (x, n, dim, error);
  if (prepend != NULL)
    parts[n_parts++] = prepend;
  parts[n_parts++] = x;
  if (append != NULL)
    parts[n_parts++] = append;
  if ((joined = cr_cat (parts, n_parts, dim, error)) == NULL)
    return NULL;
  return diff_steps (joined, n, dim, error);
}
