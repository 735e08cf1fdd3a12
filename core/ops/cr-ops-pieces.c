/* cr-ops-pieces.c — split, chunk and unbind (one node with an output per
 * piece, each piece a view of the input, as PyTorch's SplitBackward0,
 * SplitWithSizesBackward0 and UnbindBackward0; unsafe_split's
 * UnsafeSplitBackward0), flip, triu/tril, trace and repeat.
 *
 * A backward gets a gradient for some pieces only (the others are NULL):
 * those are zeros of the piece's shape, then the pieces are put back
 * together with cat (or stack) along the dim, so a create_graph backward
 * records a graph too. */
#include "cr-ops-private.h"
#include "cr-cuda.h"

#include <string.h>

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* ---- split, split_with_sizes, unbind ----------------------------------- */

static gboolean
pieces_backward (CrNode          *node,
                 CrTensor *const *grads,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  int dim = node->args->dims[0];
  gboolean stack = node->op->id == CR_OP_UNBIND;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);

  for (guint i = 0; i < node->n_outputs; i++)
    {
      const CrTensorMeta *meta = &node->output_meta[i];
      CrTensor *g = grads[i] != NULL
                    ? cr_tensor_ref (grads[i])
                    : cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, meta->device,
                                           error);
      if (g == NULL)
        return FALSE;
      g_ptr_array_add (parts, g);
    }
  SET_GRAD (0, stack ? cr_stack ((CrTensor *const *) parts->pdata, parts->len, dim, error)
                     : cr_cat ((CrTensor *const *) parts->pdata, parts->len, dim, error));
  return TRUE;
}

/* args.dims[0]: the dim; one output per piece. */
const CrOpInfo cr_op_row_SPLIT = {
  CR_OP_SPLIT, "split", "SplitBackward0", 1, "split",
  "∂split(x)/∂x: the pieces' gradients put back together",
  pieces_backward, NULL
};

const CrOpInfo cr_op_row_SPLIT_WITH_SIZES = {
  CR_OP_SPLIT_WITH_SIZES, "split", "SplitWithSizesBackward0", 1, "split",
  "∂split(x)/∂x: the pieces' gradients put back together",
  pieces_backward, NULL
};

/* unsafe_split / unsafe_chunk (PyTorch's RNN cells split their gates so):
 * pieces that share x's memory without being its views, so writing one in
 * place rebases only its own history. */
const CrOpInfo cr_op_row_UNSAFE_SPLIT = {
  CR_OP_UNSAFE_SPLIT, "unsafe_split", "UnsafeSplitBackward0", 1, "split",
  "∂split(x)/∂x: the pieces' gradients put back together",
  pieces_backward, NULL
};

const CrOpInfo cr_op_row_UNBIND = {
  CR_OP_UNBIND, "unbind", "UnbindBackward0", 1, "unbind",
  "∂unbind(x)/∂x: the slices' gradients stacked",
  pieces_backward, NULL
};

/* Views of x along dim at starts with lengths (squeezing dim for unbind),
 * recorded as one node of op with an output per piece. */
static GPtrArray *
make_pieces (CrOpId        op,
             CrTensor     *x,
             int           dim,
             const gint64 *lengths,
             guint         n)
{
  GPtrArray *out = g_ptr_array_new_full (n, (GDestroyNotify) cr_tensor_unref);
  gint64 start = 0;
  CrNode *node = NULL;

  for (guint i = 0; i < n; i++)
    {
      gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
      int ndim = x->ndim;

      memcpy (shape, x->shape, sizeof shape);
      memcpy (strides, x->strides, sizeof strides);
      if (op == CR_OP_UNBIND)
        {
          memmove (shape + dim, shape + dim + 1, sizeof (gint64) * (ndim - dim - 1));
          memmove (strides + dim, strides + dim + 1, sizeof (gint64) * (ndim - dim - 1));
          ndim--;
        }
      else
        shape[dim] = lengths[i];
      g_ptr_array_add (out, op == CR_OP_UNSAFE_SPLIT
                            ? cr_tensor_new_view (x, shape, ndim, strides,
                                                  x->offset + start * x->strides[dim])
                            : cr_ops_make_view (x, shape, ndim, strides,
                                                x->offset + start * x->strides[dim]));
      start += op == CR_OP_UNBIND ? 1 : lengths[i];
    }

  if (cr_autograd_should_record (&x, 1))
    {
      node = cr_node_new (op, &x, 1, n);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      for (guint i = 0; i < n; i++)
        cr_autograd_set_history (out->pdata[i], node, i);
      cr_node_unref (node);
    }
  return out;
}

static GPtrArray *
split_pieces (CrOpId     op,
              CrTensor  *x,
              gint64     split_size,
              int        dim,
              GError   **error)
{
  g_autofree gint64 *lengths = NULL;
  gint64 size;
  guint n;

  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "split expects at least a 1-dimensional tensor");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (split_size < 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "split expects split_size be non-negative, but got split_size=%"
                   G_GINT64_FORMAT, split_size);
      return NULL;
    }
  size = x->shape[dim];
  if (split_size == 0 && size != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "split_size can only be 0 if dimension size is 0, but got dimension size "
                   "of %" G_GINT64_FORMAT, size);
      return NULL;
    }
  n = split_size == 0 ? 1 : (guint) MAX ((size + split_size - 1) / split_size, 1);
  lengths = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    lengths[i] = MIN (split_size, size - (gint64) i * split_size);
  return make_pieces (op, x, dim, lengths, n);
}

GPtrArray *
cr_split (CrTensor  *x,
          gint64     split_size,
          int        dim,
          GError   **error)
{
  return split_pieces (CR_OP_SPLIT, x, split_size, dim, error);
}

GPtrArray *
cr_unsafe_split (CrTensor  *x,
                 gint64     split_size,
                 int        dim,
                 GError   **error)
{
  return split_pieces (CR_OP_UNSAFE_SPLIT, x, split_size, dim, error);
}

GPtrArray *
cr_split_with_sizes (CrTensor     *x,
                     const gint64 *sizes,
                     guint         n,
                     int           dim,
                     GError      **error)
{
  gint64 total = 0;

  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "split expects at least a 1-dimensional tensor");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  for (guint i = 0; i < n; i++)
    total += sizes[i];
  if (total != x->shape[dim])
    {
      GString *list = g_string_new ("[");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (list, "%s%" G_GINT64_FORMAT, i ? ", " : "", sizes[i]);
      g_string_append_c (list, ']');
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "split_with_sizes expects split_sizes to sum exactly to %" G_GINT64_FORMAT
                   " (input tensor's size at dimension %d), but got split_sizes=%s",
                   x->shape[dim], dim, list->str);
      g_string_free (list, TRUE);
      return NULL;
    }
  return make_pieces (CR_OP_SPLIT_WITH_SIZES, x, dim, sizes, n);
}

GPtrArray *
cr_unbind (CrTensor  *x,
           int        dim,
           GError   **error)
{
  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "Dimension specified as 0 but tensor has no dimensions");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  return make_pieces (CR_OP_UNBIND, x, dim, NULL, (guint) x->shape[dim]);
}

/* ---- flip -------------------------------------------------------------- */

static gboolean
flip_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  SET_GRAD (0, cr_flip (grads[0], node->args->dims, node->args->n_dims, error));
  return TRUE;
}

/* args.dims / n_dims: the flipped dims. */
const CrOpInfo cr_op_row_FLIP = {
  CR_OP_FLIP, "flip", "FlipBackward0", 1, "flip",
  "∂flip(x)/∂x: the gradient flipped back",
  flip_backward, NULL
};

CrTensor *
cr_flip (CrTensor   *x,
         const int  *dims,
         int         n_dims,
         GError    **error)
{
  int wrapped[CR_MAX_DIMS];
  gint64 strides[CR_MAX_DIMS];
  gint64 offset = x->offset;
  g_autoptr(CrTensor) view = NULL;
  CrTensor *out;
  CrNode *node;

  memcpy (strides, x->strides, sizeof strides);
  for (int i = 0; i < n_dims; i++)
    {
      wrapped[i] = dims[i];
      if (!cr_ops_wrap_dim (&wrapped[i], x->ndim, error))
        return NULL;
      for (int j = 0; j < i; j++)
        if (wrapped[j] == wrapped[i])
          {
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "dim %d appears multiple times in the list of dims", wrapped[i]);
            return NULL;
          }
      if (x->ndim > 0 && x->shape[wrapped[i]] > 0)
        {
          offset += (x->shape[wrapped[i]] - 1) * strides[wrapped[i]];
          strides[wrapped[i]] = -strides[wrapped[i]];
        }
    }
  /* A view with negative strides read out into a fresh contiguous tensor. */
  view = cr_ops_make_view (x, x->shape, x->ndim, strides, offset);
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, x->device, error);
  if (out == NULL)
    return NULL;
  if (!cr_kernel_copy_into (out, view, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  if ((node = cr_ops_record (CR_OP_FLIP, &x, 1, out)) != NULL)
    {
      memcpy (cr_node_args (node)->dims, wrapped, sizeof (int) * n_dims);
      cr_node_args (node)->n_dims = n_dims;
    }
  return out;
}

/* ---- triu, tril -------------------------------------------------------- */

/* The bool mask of the kept elements of a (..., rows, cols) shape. */
static CrTensor *
triangle_mask (gint64        rows,
               gint64        cols,
               gint64        diagonal,
               gboolean      upper,
               CrDeviceType  device,
               GError      **error)
{
  CrTensor *mask = cr_tensor_new_zeros ((gint64[]) { rows, cols }, 2, CR_DTYPE_BOOL,
                                        CR_DEVICE_CPU, error);
  guint8 *p;

  if (mask == NULL)
    return NULL;
  p = cr_tensor_data (mask);
  for (gint64 i = 0; i < rows; i++)
    for (gint64 j = 0; j < cols; j++)
      p[i * cols + j] = upper ? j - i >= diagonal : j - i <= diagonal;
  if (device != CR_DEVICE_CPU)
    {
      /* Built on the host (rows * cols bytes), copied to the operand's device. */
      CrTensor *moved = cr_tensor_to_device (mask, device, error);
      cr_tensor_unref (mask);
      mask = moved;
    }
  return mask;
}

static CrTensor *
triangle (CrOpId     op,
          CrTensor  *x,
          gint64     diagonal,
          GError   **error)
{
  g_autoptr(CrTensor) mask = NULL;
  g_autoptr(CrTensor) zero = NULL;
  CrTensor *out;
  CrNode *node;

  if (x->ndim < 2)
    {
      int d = -2;   /* PyTorch's IndexError for the missing row dim */

      if (!cr_ops_wrap_dim (&d, x->ndim, error))
        return NULL;
    }
  mask = triangle_mask (x->shape[x->ndim - 2], x->shape[x->ndim - 1], diagonal,
                        op == CR_OP_TRIU, x->device, error);
  if (mask == NULL)
    return NULL;
  zero = cr_tensor_new_scalar (0.0, x->dtype);
  out = cr_kernel_where (mask, x, zero, error);
  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    cr_node_args (node)->ints[0] = diagonal;
  return out;
}

static gboolean
triangle_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  SET_GRAD (0, triangle (node->op->id, grads[0], node->args->ints[0], error));
  return TRUE;
}

/* args.ints[0]: the diagonal. */
const CrOpInfo cr_op_row_TRIU = {
  CR_OP_TRIU, "triu", "TriuBackward0", 1, "triu",
  "∂triu(x)/∂x = 1 on and above the diagonal, 0 below",
  triangle_backward, NULL
};

const CrOpInfo cr_op_row_TRIL = {
  CR_OP_TRIL, "tril", "TrilBackward0", 1, "tril",
  "∂tril(x)/∂x = 1 on and below the diagonal, 0 above",
  triangle_backward, NULL
};

CrTensor *
cr_triu (CrTensor  *x,
         gint64     diagonal,
         GError   **error)
{
  return triangle (CR_OP_TRIU, x, diagonal, error);
}

CrTensor *
cr_tril (CrTensor  *x,
         gint64     diagonal,
         GError   **error)
{
  return triangle (CR_OP_TRIL, x, diagonal, error);
}

/* ---- trace ------------------------------------------------------------- */

/* grad times the identity of the input's shape. */
static gboolean
trace_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  gint64 rows = meta->shape[0], cols = meta->shape[1];
  g_autoptr(CrTensor) eye = cr_tensor_new_zeros (meta->shape, 2, meta->dtype, CR_DEVICE_CPU,
                                                 error);

  if (eye == NULL)
    return FALSE;
  for (gint64 i = 0; i < MIN (rows, cols); i++)
    cr_tensor_set_flat (eye, i * cols + i, 1.0);
  if (meta->device != CR_DEVICE_CPU)
    {
      /* Built on the host, copied to the input's device. */
      CrTensor *moved = cr_tensor_to_device (eye, meta->device, error);
      cr_tensor_unref (eye);
      eye = moved;
      if (eye == NULL)
        return FALSE;
    }
  SET_GRAD (0, cr_mul (grads[0], eye, error));
  return TRUE;
}

const CrOpInfo cr_op_row_TRACE = {
  CR_OP_TRACE, "trace", "TraceBackward0", 1, "tr",
  "∂tr(x)/∂xᵢⱼ = [i = j]",
  trace_backward, NULL
};

CrTensor *
cr_trace (CrTensor  *x,
          GError   **error)
{
  gint64 strides[1];
  g_autoptr(CrTensor) diag = NULL;
  CrTensor *out;

  if (x->ndim != 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "trace: expected a matrix, but got tensor with dim %d", x->ndim);
      return NULL;
    }
  strides[0] = x->strides[0] + x->strides[1];
  diag = cr_ops_make_view (x, (gint64[]) { MIN (x->shape[0], x->shape[1]) }, 1, strides,
                           x->offset);
  out = cr_kernel_sum (diag, NULL, 0, FALSE, error);
  if (out != NULL)
    cr_ops_record (CR_OP_TRACE, &x, 1, out);
  return out;
}

/* ---- repeat ------------------------------------------------------------ */

/* The gradient viewed as (r0, s0, r1, s1, ...) and summed over the repeats.
 * args.ints[0]: the number of repeat dims n; args.dims[0..n): the repeats. */
static gboolean
repeat_backward (CrNode          *node,
                 CrTensor *const *grads,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int n = (int) node->args->ints[0];
  int pad = n - meta->ndim;
  gint64 split[2 * CR_MAX_DIMS];
  int sum_dims[CR_MAX_DIMS];
  g_autoptr(CrTensor) v = NULL;
  g_autoptr(CrTensor) s = NULL;

  /* An empty result (the only one whose repeats may not fit an int) gives
   * nothing back to x. */
  if (grads[0]->numel == 0)
    {
      SET_GRAD (0, cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, meta->device,
                                        error));
      return TRUE;
    }
  for (int i = 0; i < n; i++)
    {
      split[2 * i] = node->args->dims[i];
      split[2 * i + 1] = i < pad ? 1 : meta->shape[i - pad];
      sum_dims[i] = 2 * i;
    }
  if ((v = cr_reshape (grads[0], split, 2 * n, error)) == NULL
      || (s = cr_sum_dim (v, sum_dims, n, FALSE, error)) == NULL)
    return FALSE;
  SET_GRAD (0, cr_reshape (s, meta->shape, meta->ndim, error));
  return TRUE;
}

const CrOpInfo cr_op_row_REPEAT = {
  CR_OP_REPEAT, "repeat", "RepeatBackward0", 1, "repeat",
  "∂repeat(x)/∂x: the gradient summed over the copies",
  repeat_backward, NULL
};

/* The checks of PyTorch's empty() on repeat's wrapped target sizes, in its
 * order: a size below -2**62 is not a SymInt (c10's range), then a negative
 * size; the storage size is checked by the creation that follows. */
static gboolean
check_repeat_sizes (const gint64  *shape,
                    int            n,
                    GError       **error)
{
  const gint64 min_symint = -(G_GINT64_CONSTANT (1) << 62);

  for (int i = 0; i < n; i++)
    if (shape[i] < min_symint)
      {
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "IntArrayRef contains an int that cannot be represented as a SymInt: %"
                     G_GINT64_FORMAT, shape[i]);
        return FALSE;
      }
  for (int i = 0; i < n; i++)
    if (shape[i] < 0)
      {
        g_autofree char *s = cr_shape_to_string (shape, n);

        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Trying to create tensor with negative dimension %" G_GINT64_FORMAT ": %s",
                     shape[i], s);
        return FALSE;
      }
  return TRUE;
}

CrTensor *
cr_repeat (CrTensor      *x,
           const gint64  *repeats,
           int            n,
           GError       **error)
{
  gint64 shape[CR_MAX_DIMS], split[2 * CR_MAX_DIMS], strides[2 * CR_MAX_DIMS];
  gint64 split_strides[2 * CR_MAX_DIMS];
  int pad = n - x->ndim;
  g_autoptr(CrTensor) source = NULL;
  g_autoptr(CrTensor) target = NULL;
  CrTensor *out;
  CrNode *node;

  if (n < x->ndim)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor");
      return NULL;
    }
  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "repeat: at most %d dims are supported", CR_MAX_DIMS);
      return NULL;
    }
  for (int i = 0; i < n; i++)
    {
      gint64 size = i < pad ? 1 : x->shape[i - pad];

      /* PyTorch multiplies in wrapping int64 and lets empty() judge the
       * result: the same wrap, in unsigned arithmetic (no UB). */
      shape[i] = (gint64) ((guint64) repeats[i] * (guint64) size);
      split[2 * i] = repeats[i];
      split[2 * i + 1] = size;
      strides[2 * i] = 0;
      strides[2 * i + 1] = i < pad ? 0 : x->strides[i - pad];
    }
  if (!check_repeat_sizes (shape, n, error))
    return NULL;

  /* out seen as (r0, s0, r1, s1, ...) is filled from x broadcast along the
   * repeat dims (stride 0). */
  out = cr_tensor_new_empty (shape, n, x->dtype, x->device, error);
  if (out == NULL)
    return NULL;
  /* An empty out has nothing to copy (a repeat of 0, or an empty x repeated
   * any number of times, even a negative one: no valid split view). */
  if (out->numel > 0)
    {
      cr_shape_contiguous_strides (split, 2 * n, split_strides);
      source = cr_ops_make_view (x, split, 2 * n, strides, x->offset);
      target = cr_ops_make_view (out, split, 2 * n, split_strides, out->offset);
      if (!cr_kernel_copy_into (target, source, error))
        {
          cr_tensor_unref (out);
          return NULL;
        }
    }
  if ((node = cr_ops_record (CR_OP_REPEAT, &x, 1, out)) != NULL)
    {
      /* Beyond an int only when out is empty, which the backward handles
       * without them. */
      for (int i = 0; i < n; i++)
        cr_node_args (node)->dims[i] = (int) CLAMP (repeats[i], G_MININT, G_MAXINT);
      cr_node_args (node)->ints[0] = n;
    }
  return out;
}
