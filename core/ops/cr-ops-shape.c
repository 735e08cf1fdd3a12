/* cr-ops-shape.c — transposes, views, reshapes, squeezes, expand, cat and stack.
 *
 * Views share storage with their input and point at the tensor that owns the
 * memory (view_base), as PyTorch's do, so that an in-place write through one is
 * seen by the other and the version counter is shared. Backward formulas are
 * written with these same ops, so they record a graph under create_graph.
 */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

/* A one-input node for op when x needs recording, else NULL. */
static CrNode *
maybe_node (CrOpId    op,
            CrTensor *x)
{
  if (!cr_autograd_should_record (&x, 1))
    return NULL;
  return cr_node_new (op, &x, 1, 1);
}

/* Records op over the n inputs xs on out with the one dim argument dim
 * (already wrapped), when any of xs needs recording. */
static void
record_dim_op (CrOpId           op,
               CrTensor *const *xs,
               guint            n,
               int              dim,
               CrTensor        *out)
{
  CrNode *node;

  if (!cr_autograd_should_record (xs, n))
    return;
  node = cr_node_new (op, xs, n, 1);
  cr_node_args (node)->dims[0] = dim;
  cr_node_args (node)->n_dims = 1;
  cr_ops_attach (out, node);
}

/* ---- t, .T, transpose, permute ------------------------------------------ */

/* A view with d0 and d1 swapped; NULL when the new order fails PyTorch's
 * numel check ([0, 2**62, 2**62] transposed to [2**62, 2**62, 0]). */
static CrTensor *
transpose_view (CrTensor  *x,
                int        d0,
                int        d1,
                GError   **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];

  memcpy (shape, x->shape, sizeof shape);
  memcpy (strides, x->strides, sizeof strides);
  if (x->ndim >= 2)
    {
      shape[d0] = x->shape[d1];
      shape[d1] = x->shape[d0];
      strides[d0] = x->strides[d1];
      strides[d1] = x->strides[d0];
    }
  if (!cr_shape_numel_checked (shape, x->ndim, NULL, error))
    return NULL;
  return cr_ops_make_view (x, shape, x->ndim, strides, x->offset);
}

static gboolean
t_backward (CrNode          *node,
            CrTensor *const *grad_outputs,
            CrTensor       **grad_inputs,
            GError         **error)
{
  (void) node;
  grad_inputs[0] = cr_t (grad_outputs[0], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_T = {
  CR_OP_T, "t", "TBackward0", 1, "ᵀ",
  "∂(Aᵀ)/∂A: G ↦ Gᵀ", t_backward, NULL
};

CrTensor *
cr_t (CrTensor  *x,
      GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (x->ndim > 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "t() expects a tensor with <= 2 dimensions, but self is %dD", x->ndim);
      return NULL;
    }
  out = transpose_view (x, 0, 1, error);
  if (out != NULL && (node = maybe_node (CR_OP_T, x)) != NULL)
    cr_ops_attach (out, node);
  return out;
}

static gboolean
transpose_backward (CrNode          *node,
                    CrTensor *const *grad_outputs,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  grad_inputs[0] = cr_transpose (grad_outputs[0], node->args->dims[0], node->args->dims[1], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_TRANSPOSE = {
  CR_OP_TRANSPOSE, "transpose", "TransposeBackward0", 1, "ᵀ",
  "∂out/∂x: G ↦ G.transpose(d0, d1)", transpose_backward, NULL
};

CrTensor *
cr_transpose (CrTensor  *x,
              int        dim0,
              int        dim1,
              GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (!cr_ops_wrap_dim (&dim0, x->ndim, error) || !cr_ops_wrap_dim (&dim1, x->ndim, error))
    return NULL;
  out = transpose_view (x, dim0, dim1, error);
  if (out != NULL && (node = maybe_node (CR_OP_TRANSPOSE, x)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim0;
      cr_node_args (node)->dims[1] = dim1;
      cr_node_args (node)->n_dims = 2;
      cr_ops_attach (out, node);
    }
  return out;
}

static gboolean
permute_backward (CrNode          *node,
                  CrTensor *const *grad_outputs,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  int inverse[CR_MAX_DIMS];

  for (int i = 0; i < node->args->n_dims; i++)
    inverse[node->args->dims[i]] = i;
  grad_inputs[0] = cr_permute (grad_outputs[0], inverse, node->args->n_dims, error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_PERMUTE = {
  CR_OP_PERMUTE, "permute", "PermuteBackward0", 1, "permute",
  "∂out/∂x: G ↦ G.permute(dims⁻¹)", permute_backward, NULL
};

static CrTensor *
permute_with_node (CrTensor   *x,
                   const int  *dims,
                   int         n_dims,
                   GError    **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int wrapped[CR_MAX_DIMS];
  gboolean seen[CR_MAX_DIMS] = { FALSE, };
  CrTensor *out;
  CrNode *node;

  if (n_dims != x->ndim)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "permute(sparse_coo): number of dimensions in the tensor input does not "
                   "match the length of the desired ordering of dimensions i.e. input.dim() = %d "
                   "is not equal to len(dims) = %d", x->ndim, n_dims);
      return NULL;
    }
  for (int i = 0; i < n_dims; i++)
    {
      wrapped[i] = dims[i];
      if (!cr_ops_wrap_dim (&wrapped[i], x->ndim, error))
        return NULL;
      if (seen[wrapped[i]])
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "permute(): duplicate dims are not allowed.");
          return NULL;
        }
      seen[wrapped[i]] = TRUE;
      shape[i] = x->shape[wrapped[i]];
      strides[i] = x->strides[wrapped[i]];
    }
  if (!cr_shape_numel_checked (shape, n_dims, NULL, error))
    return NULL;
  out = cr_ops_make_view (x, shape, n_dims, strides, x->offset);
  if ((node = maybe_node (CR_OP_PERMUTE, x)) != NULL)
    {
      memcpy (cr_node_args (node)->dims, wrapped, sizeof (int) * n_dims);
      cr_node_args (node)->n_dims = n_dims;
      cr_ops_attach (out, node);
    }
  return out;
}

CrTensor *
cr_permute (CrTensor   *x,
            const int  *dims,
            int         n_dims,
            GError    **error)
{
  return permute_with_node (x, dims, n_dims, error);
}

/* x.T reverses all dims (PyTorch records it as a permute). */
CrTensor *
cr_mT (CrTensor  *x,
       GError   **error)
{
  int dims[CR_MAX_DIMS];

  for (int i = 0; i < x->ndim; i++)
    dims[i] = x->ndim - 1 - i;
  return permute_with_node (x, dims, x->ndim, error);
}

/* ---- view, reshape, flatten --------------------------------------------- */

#define VIEW_INCOMPATIBLE_MESSAGE \
  "view size is not compatible with input tensor's size and stride (at least one dimension " \
  "spans across two contiguous subspaces). Use .reshape(...) instead."

/* PyTorch's infer_size: resolves one -1 against numel. PyTorch multiplies
 * the sizes in wrapping int64 arithmetic, so a product that overflows back
 * to numel (x.reshape(2**62 + 1, 4) of 4 elements) passes this check, then
 * fails in computeStride (or, for 0 elements, in numel's own check): the
 * same wrap here, in unsigned arithmetic, and the same errors, rather than
 * a view that reaches past its storage. */
static gboolean
infer_shape (const gint64 *shape,
             int           ndim,
             gint64        numel,
             gint64       *out,
             GError      **error)
{
  guint64 wrapped = 1;
  gboolean overflow = FALSE;
  gint64 newsize;
  int infer = -1;

  if (ndim > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return FALSE;
    }
  for (int d = 0; d < ndim; d++)
    {
      out[d] = shape[d];
      if (shape[d] == -1)
        {
          if (infer >= 0)
            {
              g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "only one dimension can be inferred");
              return FALSE;
            }
          infer = d;
        }
      else if (shape[d] >= 0)
        overflow |= __builtin_mul_overflow (wrapped, (guint64) shape[d], &wrapped)
                    || wrapped > (guint64) G_MAXINT64;
      else
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "invalid shape dimension %" G_GINT64_FORMAT, shape[d]);
          return FALSE;
        }
    }
  newsize = (gint64) wrapped;

  if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0))
    {
      if (infer >= 0 && newsize == 0)
        {
          g_autofree char *s = cr_shape_to_string (shape, ndim);
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "cannot reshape tensor of 0 elements into shape %s because the "
                       "unspecified dimension size -1 can be any value and is ambiguous", s);
          return FALSE;
        }
      if (overflow && numel == 0)
        return cr_shape_numel_checked (out, ndim, NULL, error);
      if (overflow)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               VIEW_INCOMPATIBLE_MESSAGE);
          return FALSE;
        }
      if (infer >= 0)
        out[infer] = numel / newsize;
      return TRUE;
    }

  {
    g_autofree char *s = cr_shape_to_string (shape, ndim);
    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                 "shape '%s' is invalid for input of size %" G_GINT64_FORMAT, s, numel);
  }
  return FALSE;
}

/* PyTorch's computeStride: the strides that let x be viewed with newshape
 * without a copy, or FALSE when some new dimension would span two
 * non-contiguous chunks of x. */
static gboolean
compute_view_strides (const CrTensor *x,
                      const gint64   *newshape,
                      int             new_ndim,
                      gint64         *newstride)
{
  const gint64 *oldshape = x->shape;
  const gint64 *oldstride = x->strides;
  int old_ndim = x->ndim;
  gint64 chunk_base_stride, tensor_numel = 1, view_numel = 1;
  int view_d;

  if (old_ndim == 0)
    {
      for (int d = 0; d < new_ndim; d++)
        newstride[d] = 1;
      return TRUE;
    }

  if (x->numel == 0)
    {
      if (cr_shape_equal (oldshape, old_ndim, newshape, new_ndim))
        {
          memcpy (newstride, oldstride, sizeof (gint64) * new_ndim);
          return TRUE;
        }
      /* Sizes after a 0 may multiply past int64: PyTorch's wrapping strides. */
      cr_shape_contiguous_strides (newshape, new_ndim, newstride);
      return TRUE;
    }

  view_d = new_ndim - 1;
  chunk_base_stride = oldstride[old_ndim - 1];
  for (int tensor_d = old_ndim - 1; tensor_d >= 0; tensor_d--)
    {
      tensor_numel *= oldshape[tensor_d];
      if (tensor_d == 0
          || (oldshape[tensor_d - 1] != 1
              && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride))
        {
          while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1))
            {
              newstride[view_d] = view_numel * chunk_base_stride;
              view_numel *= newshape[view_d];
              view_d--;
            }
          if (view_numel != tensor_numel)
            return FALSE;
          if (tensor_d > 0)
            {
              chunk_base_stride = oldstride[tensor_d - 1];
              tensor_numel = 1;
              view_numel = 1;
            }
        }
    }
  return view_d == -1;
}

/* view, _reshape_alias and _unsafe_view all go back by reshaping the gradient
 * to the input's shape. */
static gboolean
reshape_backward (CrNode          *node,
                  CrTensor *const *grad_outputs,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  grad_inputs[0] = cr_reshape (grad_outputs[0], node->input_meta[0].shape,
                               node->input_meta[0].ndim, error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_VIEW = {
  CR_OP_VIEW, "view", "ViewBackward0", 1, "view",
  "∂out/∂x: G ↦ G.reshape(x.shape)", reshape_backward, NULL
};

const CrOpInfo cr_op_row_RESHAPE_ALIAS = {
  CR_OP_RESHAPE_ALIAS, "reshape", "ReshapeAliasBackward0", 1, "reshape",
  "∂out/∂x: G ↦ G.reshape(x.shape)", reshape_backward, NULL
};

const CrOpInfo cr_op_row_UNSAFE_VIEW = {
  CR_OP_UNSAFE_VIEW, "_unsafe_view", "UnsafeViewBackward0", 1, "reshape",
  "∂out/∂x: G ↦ G.reshape(x.shape)", reshape_backward, NULL
};

CrTensor *
cr_view (CrTensor      *x,
         const gint64  *shape,
         int            ndim,
         GError       **error)
{
  gint64 newshape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  CrTensor *out;
  CrNode *node;

  if (!infer_shape (shape, ndim, x->numel, newshape, error))
    return NULL;
  if (!compute_view_strides (x, newshape, ndim, strides))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           VIEW_INCOMPATIBLE_MESSAGE);
      return NULL;
    }
  out = cr_ops_make_view (x, newshape, ndim, strides, x->offset);
  if ((node = maybe_node (CR_OP_VIEW, x)) != NULL)
    cr_ops_attach (out, node);
  return out;
}

/* _unsafe_view: x's storage under a new shape, not registered as a view (x is
 * a fresh copy nobody else sees). */
static CrTensor *
unsafe_view (CrTensor     *x,
             const gint64 *shape,
             int           ndim)
{
  gint64 strides[CR_MAX_DIMS];
  CrTensor *out;
  CrNode *node;

  cr_shape_contiguous_strides (shape, ndim, strides);
  out = cr_tensor_new_view (x, shape, ndim, strides, x->offset);
  if ((node = maybe_node (CR_OP_UNSAFE_VIEW, x)) != NULL)
    cr_ops_attach (out, node);
  return out;
}

CrTensor *
cr_reshape (CrTensor      *x,
            const gint64  *shape,
            int            ndim,
            GError       **error)
{
  gint64 newshape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  CrTensor *out;
  CrNode *node;

  if (!infer_shape (shape, ndim, x->numel, newshape, error))
    return NULL;

  if (compute_view_strides (x, newshape, ndim, strides))
    {
      out = cr_ops_make_view (x, newshape, ndim, strides, x->offset);
      if ((node = maybe_node (CR_OP_RESHAPE_ALIAS, x)) != NULL)
        cr_ops_attach (out, node);
      return out;
    }
  else
    {
      g_autoptr(CrTensor) copy = cr_clone (x, error);

      if (copy == NULL)
        return NULL;
      if (!cr_tensor_is_contiguous (copy))
        {
          /* cr_clone may keep x's layout; reshape needs a contiguous copy. */
          CrTensor *c = cr_contiguous (copy, error);
          if (c == NULL)
            return NULL;
          cr_tensor_unref (copy);
          copy = c;
        }
      return unsafe_view (copy, newshape, ndim);
    }
}

CrTensor *
cr_flatten (CrTensor  *x,
            int        start_dim,
            int        end_dim,
            GError   **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;
  guint64 merged = 1;   /* wraps as PyTorch's multiply_integers; reshape checks */

  if (!cr_ops_wrap_dim (&start_dim, x->ndim, error) || !cr_ops_wrap_dim (&end_dim, x->ndim, error))
    return NULL;
  if (start_dim > end_dim)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "flatten() has invalid args: start_dim cannot come after end_dim");
      return NULL;
    }
  if (x->ndim == 0)
    {
      gint64 one = 1;
      return cr_reshape (x, &one, 1, error);
    }
  if (start_dim == end_dim)
    return cr_tensor_ref (x);

  for (int d = 0; d < start_dim; d++)
    shape[ndim++] = x->shape[d];
  for (int d = start_dim; d <= end_dim; d++)
    merged *= (guint64) x->shape[d];
  shape[ndim++] = (gint64) merged;
  for (int d = end_dim + 1; d < x->ndim; d++)
    shape[ndim++] = x->shape[d];
  return cr_reshape (x, shape, ndim, error);
}

/* ---- unsqueeze, squeeze --------------------------------------------------- */

static gboolean
unsqueeze_backward (CrNode          *node,
                    CrTensor *const *grad_outputs,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  grad_inputs[0] = cr_squeeze_dim (grad_outputs[0], node->args->dims[0], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_UNSQUEEZE = {
  CR_OP_UNSQUEEZE, "unsqueeze", "UnsqueezeBackward0", 1, "unsqueeze",
  "∂out/∂x: G ↦ G.squeeze(dim)", unsqueeze_backward, NULL
};

static CrTensor *
unsqueeze_view (CrTensor *x,
                int       dim)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int j = 0;

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

CrTensor *
cr_unsqueeze (CrTensor  *x,
              int        dim,
              GError   **error)
{
  CrTensor *out;

  if (x->ndim >= CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim + 1, error))
    return NULL;
  out = unsqueeze_view (x, dim);
  record_dim_op (CR_OP_UNSQUEEZE, &x, 1, dim, out);
  return out;
}

static gboolean
squeeze_backward (CrNode          *node,
                  CrTensor *const *grad_outputs,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  grad_inputs[0] = cr_reshape (grad_outputs[0], node->input_meta[0].shape,
                               node->input_meta[0].ndim, error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_SQUEEZE = {
  CR_OP_SQUEEZE, "squeeze", "SqueezeBackward0", 1, "squeeze",
  "∂out/∂x: G ↦ G.reshape(x.shape)", squeeze_backward, NULL
};

/* squeeze(dim) and squeeze_(dim) go back by unsqueezing where the input had a
 * size-1 dim. */
static gboolean
squeeze_dim_backward (CrNode          *node,
                      CrTensor *const *grad_outputs,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  int dim = node->args->dims[0];

  if (meta->ndim > 0 && meta->shape[dim] == 1)
    grad_inputs[0] = cr_unsqueeze (grad_outputs[0], dim, error);
  else
    grad_inputs[0] = cr_tensor_ref (grad_outputs[0]);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_SQUEEZE_DIM = {
  CR_OP_SQUEEZE_DIM, "squeeze", "SqueezeBackward1", 1, "squeeze",
  "∂out/∂x: G ↦ G.unsqueeze(dim)", squeeze_dim_backward, NULL
};

const CrOpInfo cr_op_row_SQUEEZE_INPLACE_DIM = {
  CR_OP_SQUEEZE_INPLACE_DIM, "squeeze_", "SqueezeBackward3", 1, "squeeze",
  "∂out/∂x: G ↦ G.unsqueeze(dim)", squeeze_dim_backward, NULL
};

/* x without its size-1 dim dim, or without all its size-1 dims when dim < 0. */
static CrTensor *
squeeze_view (CrTensor *x,
              int       dim)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int ndim = 0;

  for (int d = 0; d < x->ndim; d++)
    if (x->shape[d] != 1 || (dim >= 0 && d != dim))
      {
        shape[ndim] = x->shape[d];
        strides[ndim] = x->strides[d];
        ndim++;
      }
  return cr_ops_make_view (x, shape, ndim, strides, x->offset);
}

CrTensor *
cr_squeeze (CrTensor  *x,
            GError   **error)
{
  CrTensor *out;
  CrNode *node;

  (void) error;
  out = squeeze_view (x, -1);
  if ((node = maybe_node (CR_OP_SQUEEZE, x)) != NULL)
    cr_ops_attach (out, node);
  return out;
}

CrTensor *
cr_squeeze_dim (CrTensor  *x,
                int        dim,
                GError   **error)
{
  CrTensor *out;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  out = squeeze_view (x, dim);
  record_dim_op (CR_OP_SQUEEZE_DIM, &x, 1, dim, out);
  return out;
}

/* ---- expand ------------------------------------------------------------- */

static gboolean
expand_backward (CrNode          *node,
                 CrTensor *const *grad_outputs,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  grad_inputs[0] = cr_sum_to_shape (grad_outputs[0], node->input_meta[0].shape,
                                    node->input_meta[0].ndim, error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_EXPAND = {
  CR_OP_EXPAND, "expand", "ExpandBackward0", 1, "expand",
  "∂out/∂x: G ↦ G summed over the broadcast dims", expand_backward, NULL
};

/* PyTorch's inferExpandGeometry, with its error texts. */
static gboolean
expand_geometry (const CrTensor *x,
                 const gint64   *sizes,
                 int             ndim,
                 gint64         *out_shape,
                 gint64         *out_strides,
                 GError        **error)
{
  if (ndim > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return FALSE;
    }
  if (ndim < x->ndim)
    {
      g_autofree char *s = cr_shape_to_string (sizes, ndim);
      g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater "
                   "or equal to the number of dimensions in the tensor (%d)",
                   cr_dtype_legacy_name (x->dtype), xs, s, ndim, x->ndim);
      return FALSE;
    }

  for (int i = ndim - 1; i >= 0; i--)
    {
      int offset = ndim - 1 - i;
      int dim = x->ndim - 1 - offset;
      gint64 size = dim >= 0 ? x->shape[dim] : 1;
      gint64 stride = dim >= 0 ? x->strides[dim]
                    : i + 1 < ndim ? (gint64) ((guint64) out_shape[i + 1]
                                                * (guint64) out_strides[i + 1]) : 1;
      gint64 target = sizes[i];

      if (target == -1)
        {
          if (dim < 0)
            {
              g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "The expanded size of the tensor (-1) isn't allowed in a leading, "
                           "non-existing dimension %d", i);
              return FALSE;
            }
          target = size;
        }
      if (size != target)
        {
          /* A negative target passes here, as in PyTorch: cr_expand's
           * numel check or its negative-size check fails it. */
          if (size != 1)
            {
              g_autofree char *s = cr_shape_to_string (sizes, ndim);
              g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);
              g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "The expanded size of the tensor (%" G_GINT64_FORMAT ") must match "
                           "the existing size (%" G_GINT64_FORMAT ") at non-singleton dimension "
                           "%d.  Target sizes: %s.  Tensor sizes: %s",
                           target, size, i, s, xs);
              return FALSE;
            }
          size = target;
          stride = 0;
        }
      out_shape[i] = size;
      out_strides[i] = stride;
    }
  return TRUE;
}

CrTensor *
cr_expand (CrTensor      *x,
           const gint64  *shape,
           int            ndim,
           GError       **error)
{
  gint64 out_shape[CR_MAX_DIMS], out_strides[CR_MAX_DIMS];
  CrTensor *out;
  CrNode *node;

  if (!expand_geometry (x, shape, ndim, out_shape, out_strides, error)
      || !cr_shape_numel_checked (out_shape, ndim, NULL, error))
    return NULL;
  /* PyTorch makes a view with a negative size when a 0 hides it from the
   * numel check (expand(-2, 0)); here it is the creation error. */
  for (int i = 0; i < ndim; i++)
    if (out_shape[i] < 0)
      {
        g_autofree char *s = cr_shape_to_string (shape, ndim);
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Trying to create tensor with negative dimension %" G_GINT64_FORMAT ": %s",
                     out_shape[i], s);
        return NULL;
      }
  out = cr_ops_make_view (x, out_shape, ndim, out_strides, x->offset);
  if ((node = maybe_node (CR_OP_EXPAND, x)) != NULL)
    cr_ops_attach (out, node);
  return out;
}

CrTensor *
cr_contiguous (CrTensor  *x,
               GError   **error)
{
  if (cr_tensor_is_contiguous (x))
    return cr_tensor_ref (x);
  return cr_clone (x, error);
}

/* ---- cat, stack ----------------------------------------------------------- */

/* grad[..., start:start+length, ...] along dim, through indexing so that it
 * records SliceBackward0 under create_graph. */
static CrTensor *
narrow (CrTensor  *grad,
        int        dim,
        gint64     start,
        gint64     length,
        GError   **error)
{
  CrIndexItem items[CR_MAX_DIMS];

  memset (items, 0, sizeof items);
  for (int d = 0; d < dim; d++)
    items[d].kind = CR_INDEX_SLICE;
  items[dim].kind = CR_INDEX_SLICE;
  items[dim].start = start;
  items[dim].stop = start + length;
  items[dim].has_start = items[dim].has_stop = TRUE;
  return cr_index_get (grad, items, dim + 1, error);
}

/* PyTorch (1.13) still skips 1-d empty tensors in cat: the legacy way to
 * start an accumulation. */
static gboolean
cat_skipped (const CrTensorMeta *meta)
{
  return meta->ndim == 1 && meta->shape[0] == 0;
}

static gboolean
cat_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  int dim = node->args->dims[0];
  gint64 start = 0;

  for (guint i = 0; i < node->n_inputs; i++)
    {
      const CrTensorMeta *meta = &node->input_meta[i];

      if (cat_skipped (meta))
        {
          if (cr_ops_needs_grad (node, i))
            {
              grad_inputs[i] = cr_tensor_new_zeros (meta->shape, 1, grad_outputs[0]->dtype,
                                                    grad_outputs[0]->device, error);
              if (grad_inputs[i] == NULL)
                return FALSE;
            }
          continue;
        }
      if (cr_ops_needs_grad (node, i))
        {
          grad_inputs[i] = narrow (grad_outputs[0], dim, start, meta->shape[dim], error);
          if (grad_inputs[i] == NULL)
            return FALSE;
        }
      start += meta->shape[dim];
    }
  return TRUE;
}

const CrOpInfo cr_op_row_CAT = {
  CR_OP_CAT, "cat", "CatBackward0", -1, "cat",
  "∂out/∂xᵢ: G ↦ the slice of G where xᵢ went", cat_backward, NULL
};

/* Checks and the forward of cat without recording. */
static CrTensor *
cat_forward (CrTensor *const  *xs,
             guint             n,
             int              *dim_inout,
             GError          **error)
{
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  const CrTensor *first = NULL;
  int dim = *dim_inout;
  CrDType dtype;

  if (n == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.cat(): expected a non-empty list of Tensors");
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    if (xs[i]->ndim == 0)
      {
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "zero-dimensional tensor (at position %u) cannot be concatenated", i);
        return NULL;
      }

  dtype = xs[0]->dtype;
  for (guint i = 0; i < n; i++)
    {
      dtype = cr_dtype_promote (dtype, xs[i]->dtype);
      if (xs[i]->ndim == 1 && xs[i]->shape[0] == 0)
        continue;
      if (first == NULL)
        first = xs[i];
      g_ptr_array_add (kept, xs[i]);
    }
  if (first == NULL)
    {
      /* Only empty tensors: the result is an empty 1-d tensor. */
      gint64 zero = 0;
      return cr_tensor_new_empty (&zero, 1, dtype, xs[0]->device, error);
    }
  if (!cr_ops_wrap_dim (&dim, first->ndim, error))
    return NULL;

  for (guint i = 0; i < n; i++)
    {
      const CrTensor *x = xs[i];

      if (x->ndim == 1 && x->shape[0] == 0)
        continue;
      if (x->ndim != first->ndim)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Tensors must have same number of dimensions: got %d and %d",
                       first->ndim, x->ndim);
          return NULL;
        }
      for (int d = 0; d < x->ndim; d++)
        if (d != dim && x->shape[d] != first->shape[d])
          {
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "Sizes of tensors must match except in dimension %d. Expected size %"
                         G_GINT64_FORMAT " but got size %" G_GINT64_FORMAT
                         " for tensor number %u in the list.",
                         dim, first->shape[d], x->shape[d], i);
            return NULL;
          }
    }

  *dim_inout = dim;
  {
    /* The kernel wants one dtype: cast the others first. */
    g_autoptr(GPtrArray) cast = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
    for (guint i = 0; i < kept->len; i++)
      {
        CrTensor *x = g_ptr_array_index (kept, i);
        CrTensor *c = x->dtype == dtype ? cr_tensor_ref (x) : cr_kernel_cast (x, dtype, error);
        if (c == NULL)
          return NULL;
        g_ptr_array_add (cast, c);
      }
    return cr_kernel_cat ((CrTensor *const *) cast->pdata, cast->len, dim, error);
  }
}

CrTensor *
cr_cat (CrTensor *const  *xs,
        guint             n,
        int               dim,
        GError          **error)
{
  CrTensor *out = cat_forward (xs, n, &dim, error);

  if (out == NULL)
    return NULL;
  record_dim_op (CR_OP_CAT, xs, n, dim, out);
  return out;
}

static gboolean
stack_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  int dim = node->args->dims[0];
  CrIndexItem items[CR_MAX_DIMS];

  memset (items, 0, sizeof items);
  for (int d = 0; d < dim; d++)
    items[d].kind = CR_INDEX_SLICE;
  items[dim].kind = CR_INDEX_INT;
  for (guint i = 0; i < node->n_inputs; i++)
    {
      if (!cr_ops_needs_grad (node, i))
        continue;
      items[dim].value = i;
      grad_inputs[i] = cr_index_get (grad_outputs[0], items, dim + 1, error);
      if (grad_inputs[i] == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_STACK = {
  CR_OP_STACK, "stack", "StackBackward0", -1, "stack",
  "∂out/∂xᵢ: G ↦ G.select(dim, i)", stack_backward, NULL
};

CrTensor *
cr_stack (CrTensor *const  *xs,
          guint             n,
          int               dim,
          GError          **error)
{
  g_autoptr(GPtrArray) views = NULL;
  CrTensor *out;

  if (n == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "stack expects a non-empty TensorList");
      return NULL;
    }
  for (guint i = 1; i < n; i++)
    if (!cr_shape_equal (xs[i]->shape, xs[i]->ndim, xs[0]->shape, xs[0]->ndim))
      {
        g_autofree char *a = cr_shape_to_string (xs[0]->shape, xs[0]->ndim);
        g_autofree char *b = cr_shape_to_string (xs[i]->shape, xs[i]->ndim);
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "stack expects each tensor to be equal size, but got %s at entry 0 and "
                     "%s at entry %u", a, b, i);
        return NULL;
      }
  if (xs[0]->ndim >= CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, xs[0]->ndim + 1, error))
    return NULL;
  {
    /* PyTorch sizes the result first: its numel check, before cat's. */
    gint64 out_shape[CR_MAX_DIMS];

    memcpy (out_shape, xs[0]->shape, sizeof (gint64) * dim);
    out_shape[dim] = n;
    memcpy (out_shape + dim + 1, xs[0]->shape + dim, sizeof (gint64) * (xs[0]->ndim - dim));
    if (!cr_shape_numel_checked (out_shape, xs[0]->ndim + 1, NULL, error))
      return NULL;
  }

  /* Forward: cat of unsqueezed views, none of it recorded; the node is one
   * StackBackward0 as in PyTorch. */
  views = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (views, unsqueeze_view (xs[i], dim));
  {
    int d = dim;
    out = cat_forward ((CrTensor *const *) views->pdata, n, &d, error);
  }
  if (out == NULL)
    return NULL;

  record_dim_op (CR_OP_STACK, xs, n, dim, out);
  return out;
}
