/* cr-ops-pad.c — F.pad: constant_pad_nd (ConstantPadNdBackward0) and the
 * reflection and replication pads (ReflectionPad1DBackward0 ...
 * ReplicationPad3DBackward0), with PyTorch 1.13's dispatch and messages.
 *
 * constant_pad_nd's backward is constant_pad_nd of the gradient with the pads
 * negated, as in PyTorch, so it is differentiable by construction. The
 * reflection and replication pads are a take of the input at flat positions
 * worked out on the host; their backward sums the gradient back with the
 * differentiable scatter of cr-ops-index.c. Circular padding, a composition
 * of slices in PyTorch, is a take recorded as indexing here. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-error.h"

#include <string.h>

/* CONSTANT_PAD_ND: args.ints[0] the number of pads; the pads themselves in
 * args.dims (at most 8, as F.pad of 4 padded dims). */
static gboolean
constant_pad_backward (CrNode          *node,
                       CrTensor *const *grad_outputs,
                       CrTensor       **grad_inputs,
                       GError         **error)
{
  gint64 negated[CR_MAX_DIMS];
  int n = (int) node->args->ints[0];

  for (int i = 0; i < n; i++)
    negated[i] = -node->args->dims[i];
  SET_GRAD (0, cr_constant_pad (grad_outputs[0], negated, n, 0.0, error));
  return TRUE;
}

const CrOpInfo cr_op_row_CONSTANT_PAD_ND = {
  CR_OP_CONSTANT_PAD_ND, "constant_pad_nd", "ConstantPadNdBackward0", 1, "pad",
  "∂out/∂x: G with the padding cut off", constant_pad_backward, NULL
};

/* The reflection and replication pads: saved[0] the flat positions read;
 * saved[1] self, kept only to show it (PyTorch's _saved_self); args as
 * CONSTANT_PAD_ND's (_saved_padding). */
static gboolean
take_pad_backward (CrNode          *node,
                   CrTensor *const *grad_outputs,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  SAVED (pos, 0);

  if (!cr_ops_check_saved_from (node, 1, error))
    return FALSE;

  SET_GRAD (0, cr_ops_scatter_add_flat (grad_outputs[0], pos, &node->input_meta[0], error));
  return TRUE;
}

#define PAD_ROW(ID, NAME, GRAD_FN, RULE) \
  const CrOpInfo cr_op_row_##ID = { \
    CR_OP_##ID, NAME, GRAD_FN, 1, "pad", RULE, take_pad_backward, NULL \
  };
#define REFLECT_RULE "∂out/∂x: G summed back onto the elements each border mirrors"
#define REPLICATE_RULE "∂out/∂x: G summed back onto the edge elements each border repeats"
PAD_ROW (REFLECTION_PAD1D, "reflection_pad1d", "ReflectionPad1DBackward0", REFLECT_RULE)
PAD_ROW (REFLECTION_PAD2D, "reflection_pad2d", "ReflectionPad2DBackward0", REFLECT_RULE)
PAD_ROW (REFLECTION_PAD3D, "reflection_pad3d", "ReflectionPad3DBackward0", REFLECT_RULE)
PAD_ROW (REPLICATION_PAD1D, "replication_pad1d", "ReplicationPad1DBackward0", REPLICATE_RULE)
PAD_ROW (REPLICATION_PAD2D, "replication_pad2d", "ReplicationPad2DBackward0", REPLICATE_RULE)
PAD_ROW (REPLICATION_PAD3D, "replication_pad3d", "ReplicationPad3DBackward0", REPLICATE_RULE)
/* PyTorch 1.13 writes a circular pad as slice copies into a new tensor, so
 * its node is the CopySlices of the last copy. */
PAD_ROW (CIRCULAR_PAD, "pad_circular", "CopySlices",
         "∂out/∂x: G summed back onto the elements each border wraps around to")

/* ---- constant ----------------------------------------------------------- */

/* PyTorch's narrow() checks of one cut. */
static gboolean
check_narrow (gint64    start,
              gint64    length,
              gint64    size,
              GError  **error)
{
  if (start != size && (start < -size || start >= size))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [-%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT "], but got %" G_GINT64_FORMAT ")",
                   size, size - 1, start);
      return FALSE;
    }
  if (length < 0 || start > size - length)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "start (%" G_GINT64_FORMAT ") + length (%" G_GINT64_FORMAT ") exceeds "
                   "dimension size (%" G_GINT64_FORMAT ").", start, length, size);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_pad_length (int              n,
                  const CrTensor  *x,
                  GError         **error)
{
  if (n % 2 != 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Padding length must be divisible by 2");
      return FALSE;
    }
  if (n > 2 * x->ndim)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "Padding length too large");
      return FALSE;
    }
  return TRUE;
}

CrTensor *
cr_constant_pad (CrTensor      *x,
                 const gint64  *pad,
                 int            n,
                 double         value,
                 GError       **error)
{
  gint64 out_shape[CR_MAX_DIMS], in_start[CR_MAX_DIMS], out_start[CR_MAX_DIMS];
  gint64 len[CR_MAX_DIMS];
  g_autoptr(CrTensor) out = NULL;
  int first;
  CrNode *node;

  if (!check_pad_length (n, x, error))
    return NULL;
  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "constant padding of more than %d dims is not supported by Chainrule yet",
                   CR_MAX_DIMS / 2);
      return NULL;
    }
  first = x->ndim - n / 2;
  for (int d = 0; d < x->ndim; d++)
    {
      gint64 size = x->shape[d], l = 0, r = 0;

      if (d >= first)
        {
          int k = 2 * (x->ndim - d - 1);

          l = pad[k];
          r = pad[k + 1];
        }
      /* The cuts of negative pads, as PyTorch's narrow()s check them. */
      in_start[d] = 0;
      if (l < 0)
        {
          if (!check_narrow (l == G_MININT64 ? G_MAXINT64 : -l, l < -size ? -1 : size + l, size,
                             error))
            return NULL;
          in_start[d] = -l;
          size += l;
        }
      if (r < 0)
        {
          if (!check_narrow (0, r < -size ? -1 : size + r, size, error))
            return NULL;
          size += r;
        }
      len[d] = size;
      out_start[d] = MAX (l, 0);
      if (__builtin_add_overflow (size, MAX (l, 0), &out_shape[d])
          || __builtin_add_overflow (out_shape[d], MAX (r, 0), &out_shape[d]))
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "numel: integer multiplication overflow");
          return NULL;
        }
    }

  out = cr_tensor_new_full (out_shape, x->ndim, value, x->dtype, x->device, error);
  if (out == NULL)
    return NULL;
  if (cr_shape_numel (len, x->ndim) > 0)
    {
      gint64 in_off = x->offset, out_off = out->offset;
      g_autoptr(CrTensor) src = NULL;
      g_autoptr(CrTensor) dst = NULL;

      for (int d = 0; d < x->ndim; d++)
        {
          in_off += in_start[d] * x->strides[d];
          out_off += out_start[d] * out->strides[d];
        }
      src = cr_tensor_new_view (x, len, x->ndim, x->strides, in_off);
      dst = cr_tensor_new_view (out, len, x->ndim, out->strides, out_off);
      if (!cr_kernel_copy_into (dst, src, error))
        return NULL;
    }
  if ((node = cr_ops_record (CR_OP_CONSTANT_PAD_ND, &x, 1, out)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      args->ints[0] = n;
      for (int i = 0; i < n; i++)
        args->dims[i] = (int) CLAMP (pad[i], G_MININT, G_MAXINT);
      /* The value put around x (0 when F.pad was given none), as x's dtype. */
      cr_ops_note_number (node, value, !cr_dtype_is_floating (x->dtype));
    }
  return g_steal_pointer (&out);
}

/* ---- reflect, replicate, circular ---------------------------------------- */

typedef enum {
  PAD_REFLECT,
  PAD_REPLICATE,
  PAD_CIRCULAR,
} PadMode;

static const char *const mode_names[] = { "reflect", "replicate", "circular" };

/* The input index that output index i (of size + l + r) reads. */
static gint64
source_index (PadMode  mode,
              gint64   i,
              gint64   l,
              gint64   size)
{
  gint64 j = i - l;

  switch (mode)
    {
    case PAD_REFLECT:
      if (j < 0)
        return -j;
      return j >= size ? 2 * (size - 1) - j : j;
    case PAD_REPLICATE:
      return CLAMP (j, 0, size - 1);
    case PAD_CIRCULAR:
    default:
      return ((j % size) + size) % size;
    }
}

static gboolean
check_mode_pads (PadMode          mode,
                 const CrTensor  *x,
                 const gint64    *pad,
                 int              n,
                 GError         **error)
{
  for (int k = 0; k < n / 2; k++)
    {
      int d = x->ndim - 1 - k;
      gint64 size = x->shape[d], l = pad[2 * k], r = pad[2 * k + 1], total;

      if (__builtin_add_overflow (size, l, &total) || __builtin_add_overflow (total, r, &total))
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "numel: integer multiplication overflow");
          return FALSE;
        }
      if (mode == PAD_REFLECT && (l >= size || r >= size))
        {
          g_autofree char *shape = cr_shape_to_string (x->shape, x->ndim);

          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Argument #4: Padding size should be less than the corresponding input "
                       "dimension, but got: padding (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                       ") at dimension %d of input %s", l, r, d, shape);
          return FALSE;
        }
      if (mode == PAD_CIRCULAR && (l > size || r > size))
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "Padding value causes wrapping around more than once.");
          return FALSE;
        }
      if (total < 1 || size == 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "input (W: %" G_GINT64_FORMAT ") is too small. Calculated output W: %"
                       G_GINT64_FORMAT, size, total);
          return FALSE;
        }
    }
  return TRUE;
}

static CrTensor *
index_pad (PadMode        mode,
           CrTensor      *x,
           const gint64  *pad,
           int            n,
           GError       **error)
{
  static const CrOpId reflect_ops[3] = {
    CR_OP_REFLECTION_PAD1D, CR_OP_REFLECTION_PAD2D, CR_OP_REFLECTION_PAD3D,
  };
  static const CrOpId replicate_ops[3] = {
    CR_OP_REPLICATION_PAD1D, CR_OP_REPLICATION_PAD2D, CR_OP_REPLICATION_PAD3D,
  };
  gint64 out_shape[CR_MAX_DIMS], in_strides[CR_MAX_DIMS], coord[CR_MAX_DIMS] = { 0, };
  gint64 left[CR_MAX_DIMS] = { 0, };
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *out;
  gint64 *p;
  CrNode *node;

  if (!check_mode_pads (mode, x, pad, n, error))
    return NULL;
  for (int d = 0; d < x->ndim; d++)
    out_shape[d] = x->shape[d];
  for (int k = 0; k < n / 2; k++)
    {
      int d = x->ndim - 1 - k;

      left[d] = pad[2 * k];
      out_shape[d] = x->shape[d] + pad[2 * k] + pad[2 * k + 1];
    }
  cr_shape_contiguous_strides (x->shape, x->ndim, in_strides);
  pos = cr_tensor_new_empty (out_shape, x->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (pos == NULL)
    return NULL;
  p = cr_tensor_data (pos);
  for (gint64 i = 0; i < pos->numel; i++)
    {
      gint64 at = 0;

      for (int d = 0; d < x->ndim; d++)
        at += source_index (mode, coord[d], left[d], x->shape[d]) * in_strides[d];
      p[i] = at;
      for (int d = x->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < out_shape[d])
            break;
          coord[d] = 0;
        }
    }
  pos = cr_ops_positions_to (g_steal_pointer (&pos), x->device, error);
  if (pos == NULL)
    return NULL;
  out = cr_kernel_take (x, pos, error);
  if (out == NULL)
    return NULL;
  /* One array per access: UBSan's object-size check flags an index into
   * the result of choosing between two arrays. */
  node = cr_ops_record (mode == PAD_CIRCULAR ? CR_OP_CIRCULAR_PAD
                        : mode == PAD_REFLECT ? reflect_ops[n / 2 - 1] : replicate_ops[n / 2 - 1],
                        &x, 1, out);
  if (node != NULL)
    {
      cr_node_save (node, 0, pos, FALSE);
      if (mode != PAD_CIRCULAR)
        {
          CrOpArgs *args = cr_node_args (node);

          cr_node_save (node, 1, x, FALSE);
          args->ints[0] = n;
          for (int i = 0; i < n; i++)
            args->dims[i] = (int) CLAMP (pad[i], G_MININT, G_MAXINT);
        }
    }
  return out;
}

CrTensor *
cr_pad (CrTensor      *x,
        const gint64  *pad,
        int            n,
        const char    *mode,
        gboolean       has_value,
        double         value,
        GError       **error)
{
  PadMode m;

  if (strcmp (mode, "constant") != 0 && strcmp (mode, "reflect") != 0
      && strcmp (mode, "replicate") != 0 && strcmp (mode, "circular") != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "Unrecognised padding mode %s", mode);
      return NULL;
    }
  if (!check_pad_length (n, x, error))
    return NULL;
  if (strcmp (mode, "constant") == 0)
    return cr_constant_pad (x, pad, n, has_value ? value : 0.0, error);

  m = strcmp (mode, "reflect") == 0 ? PAD_REFLECT
      : strcmp (mode, "replicate") == 0 ? PAD_REPLICATE : PAD_CIRCULAR;
  if (has_value && value != 0.0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Padding mode \"%s\" doesn't take in value argument", mode_names[m]);
      return NULL;
    }
  if ((n == 2 && (x->ndim == 2 || x->ndim == 3)) || (n == 4 && (x->ndim == 3 || x->ndim == 4))
      || (n == 6 && (x->ndim == 4 || x->ndim == 5)))
    return index_pad (m, x, pad, n, error);
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                       "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for "
                       "now");
  return NULL;
}
