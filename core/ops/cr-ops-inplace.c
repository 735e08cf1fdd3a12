/* cr-ops-inplace.c — in-place ops: x += y, x *= y, zero_, fill_, copy_, clamp_.
 *
 * PyTorch's rules: a leaf that requires grad cannot be changed in place while
 * grad mode is on (under no_grad it can: that is how SGD updates weights);
 * every in-place change bumps the version counter, which makes a tensor saved
 * for backward stale; and when the change is recorded, the tensor's history
 * is extended: the new node's first edge is the tensor's previous history and
 * the tensor's grad_fn becomes the new node (z = x * 2; z += 1 makes
 * z.grad_fn an AddBackward0 whose first edge is the MulBackward0). A formula
 * that needs the old value gets a copy of it, taken before the write.
 *
 * The rows of the ops here that only exist in place (FILL, ZERO, COPY) are in
 * this file; add_, mul_ ... reuse the rows of their out-of-place versions. */
#include "cr-ops-private.h"
#include "cr-cuda.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

static gboolean
zeros_for_inputs (CrNode          *node,
                  CrTensor *const *grads,
                  CrTensor       **grad_inputs,
                  guint            n,
                  GError         **error)
{
  for (guint i = 0; i < n; i++)
    if (cr_ops_needs_grad (node, i))
      {
        grad_inputs[i] = cr_tensor_new_zeros (grads[0]->shape, grads[0]->ndim, grads[0]->dtype,
                                              grads[0]->device, error);
        if (grad_inputs[i] == NULL)
          return FALSE;
      }
  return TRUE;
}

static CrTensor *
zero_local_grad (CrNode  *node,
                 guint    input,
                 GError **error)
{
  const CrTensorMeta *meta = &node->output_meta[0];

  return cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, meta->device, error);
}

/* The flat positions, in base (contiguous), of the elements of view: an
 * int64 tensor of view's shape. */
static CrTensor *
positions_in_base (const CrTensor *view,
                   const CrTensor *base)
{
  CrTensor *pos = cr_tensor_new_empty (view->shape, view->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU,
                                       NULL);
  gint64 idx[CR_MAX_DIMS] = { 0 };
  gint64 off = view->offset - base->offset;

  if (pos == NULL)
    return NULL;
  for (gint64 i = 0; i < view->numel; i++)
    {
      cr_tensor_set_flat (pos, i, (double) off);
      for (int d = view->ndim - 1; d >= 0; d--)
        {
          idx[d]++;
          off += view->strides[d];
          if (idx[d] < view->shape[d])
            break;
          off -= view->strides[d] * view->shape[d];
          idx[d] = 0;
        }
    }
  if (base->device != CR_DEVICE_CPU)
    {
      /* Built on the host, used with the base's gradient on its device. */
      CrTensor *moved = cr_tensor_to_device (pos, base->device, NULL);
      cr_tensor_unref (pos);
      pos = moved;
    }
  return pos;
}

/* Records op over inputs (inputs[0] is self, with its history before the
 * write) and makes the new node self's grad_fn. NULL when not recording.
 *
 * A view written in place changes its base too: as PyTorch's rebase_history,
 * the write goes on the base's history (CopySlices, whose value is the op's
 * result) and the view is regenerated from the base (AsStridedBackward0). */
CrNode *
cr_ops_rebase_history (CrOpId           op,
                       CrTensor *const *inputs,
                       guint            n_inputs)
{
  CrTensor *self = inputs[0];
  CrTensor *base = self->view_base;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) value = NULL;
  CrTensor *write[2];
  CrNode *node;
  CrNode *copy_slices;
  CrNode *as_strided;

  if (!cr_autograd_should_record (inputs, n_inputs) || !cr_dtype_is_floating (self->dtype))
    return NULL;
  node = cr_node_new (op, inputs, n_inputs, 1);

  if (base == NULL || !cr_tensor_is_contiguous (base)
      || (pos = positions_in_base (self, base)) == NULL)
    {
      cr_autograd_set_history (self, node, 0);
      cr_node_unref (node);
      return node;
    }

  value = cr_tensor_alias (self);
  cr_autograd_set_history (value, node, 0);
  cr_node_unref (node);

  write[0] = base;
  write[1] = value;
  copy_slices = cr_node_new (CR_OP_COPY_SLICES, write, 2, 1);
  cr_node_save (copy_slices, 0, pos, FALSE);
  cr_node_args (copy_slices)->ints[0] = FALSE;
  cr_autograd_set_history (base, copy_slices, 0);
  cr_node_unref (copy_slices);

  as_strided = cr_node_new (CR_OP_AS_STRIDED, &base, 1, 1);
  cr_node_save (as_strided, 0, pos, FALSE);
  cr_autograd_set_history (self, as_strided, 0);
  cr_node_unref (as_strided);
  return node;   /* alive: copy_slices' edge holds it */
}

/* Saves other in slot for a formula. If other shares self's memory (x *= x),
 * keeping other itself would be a cycle (self owns the node); an alias that
 * counts as the node's output gives PyTorch's stale-tensor error instead. */
static void
save_operand (CrNode   *node,
              guint     slot,
              CrTensor *self,
              CrTensor *other,
              guint32   version_before)
{
  if (other->storage == self->storage)
    {
      cr_node_save (node, slot, other, TRUE);
      node->saved[slot].version = version_before;
    }
  else
    cr_node_save (node, slot, other, FALSE);
}

static CrBinaryOp
kernel_op (CrOpId op)
{
  switch (op)
    {
    case CR_OP_ADD:        return CR_BINARY_ADD;
    case CR_OP_SUB:        return CR_BINARY_SUB;
    case CR_OP_POW:
    case CR_OP_POW_SCALAR: return CR_BINARY_POW;
    default:               return CR_BINARY_COUNT;
    }
}

gboolean
cr_inplace_binary (CrOpId     op,
                   CrTensor  *self,
                   CrTensor  *other,
                   GError   **error)
{
  CrTensor *inputs[2] = { self, other };
  CrBinaryOp kop = kernel_op (op);
  g_autoptr(CrTensor) old_self = NULL;
  gboolean recording;
  guint32 version_before;
  CrNode *node;

  g_return_val_if_fail (self != NULL && other != NULL, FALSE);
  if (op == CR_OP_MUL || op == CR_OP_DIV)
    return cr_inplace_binary_row (op, self, other, FALSE, error);
  g_return_val_if_fail (kop != CR_BINARY_COUNT, FALSE);

  if (op == CR_OP_POW_SCALAR && !other->is_wrapped_number)
    op = CR_OP_POW;
  else if (op == CR_OP_POW && other->is_wrapped_number && !other->requires_grad)
    op = CR_OP_POW_SCALAR;

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;

  /* pow_'s formulas need self's old value. */
  recording = cr_autograd_should_record (inputs, 2) && cr_dtype_is_floating (self->dtype);
  if (recording
      && (((op == CR_OP_POW_SCALAR || op == CR_OP_POW) && self->requires_grad)
          || (op == CR_OP_POW && other->requires_grad)))
    {
      /* PyTorch's original_self = self.clone(): recorded, so that a double
       * backward reaches self's earlier history through it. */
      old_self = cr_clone (self, error);
      if (old_self == NULL)
        return FALSE;
    }

  version_before = cr_tensor_version (self);
  if (!cr_kernel_binary_into (kop, self, self, other, error))
    return FALSE;
  cr_tensor_bump_version (self);

  if (!recording || (node = cr_ops_rebase_history (op, inputs, op == CR_OP_POW_SCALAR ? 1 : 2)) == NULL)
    return TRUE;

  switch (op)
    {
    case CR_OP_POW_SCALAR:
      cr_node_args (node)->scalar[0] = cr_tensor_read_flat (other, 0);
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_node_save (node, 0, old_self, FALSE);
      break;
    case CR_OP_POW:
      cr_node_save (node, 0, old_self, FALSE);
      save_operand (node, 1, self, other, version_before);
      if (cr_ops_needs_grad (node, 1))
        cr_node_save (node, 2, self, TRUE);
      break;
    default:
      break;
    }
  return TRUE;
}

gboolean
cr_inplace_unary (CrOpId     op,
                  CrTensor  *self,
                  GError   **error)
{
  return cr_inplace_unary_p (op, self, NULL, error);
}

gboolean
cr_inplace_unary_p (CrOpId               op,
                    CrTensor            *self,
                    const CrUnaryParams *params,
                    GError             **error)
{
  g_autoptr(CrTensor) old_self = NULL;
  g_autoptr(CrTensor) out = NULL;
  CrUnaryParams resolved;
  CrUnaryOp kernel;
  CrOpId node_op;
  int save;
  CrNode *node;

  g_return_val_if_fail (self != NULL, FALSE);
  if (!cr_ops_unary_info (op, &kernel, &save))
    g_return_val_if_reached (FALSE);
  /* The in-place node may save another tensor than the row's (the result). */
  node_op = cr_ops_unary_inplace_node (op);
  if (!cr_ops_unary_info (node_op, &kernel, &save))
    g_return_val_if_reached (FALSE);

  if (!cr_ops_unary_params_resolve (op, params, &resolved, error)
      || !cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (save == 1 && cr_autograd_should_record (&self, 1) && cr_dtype_is_floating (self->dtype)
      && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;
  out = cr_kernel_unary_p (kernel, self, resolved.value, error);
  if (out == NULL)
    return FALSE;
  if (out->dtype != self->dtype && !cr_dtype_is_floating (self->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "result type %s can't be cast to the desired output type %s",
                   cr_dtype_scalar_name (out->dtype), cr_dtype_scalar_name (self->dtype));
      return FALSE;
    }
  if (!cr_kernel_copy_into (self, out, error))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (node_op, &self, 1)) != NULL)
    {
      cr_ops_unary_params_keep (node, node_op, &resolved);
      if (save == 1)
        cr_node_save (node, 0, old_self, FALSE);
      else if (save == 2)
        cr_node_save (node, 0, self->grad_fn == node ? self : out, self->grad_fn == node);
    }
  return TRUE;
}

/* ---- zero_, fill_ ------------------------------------------------------ */

static gboolean
zero_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  return zeros_for_inputs (node, grads, grad_inputs, node->n_inputs, error);
}

const CrOpInfo cr_op_row_ZERO = {
  CR_OP_ZERO, "zero_", "ZeroBackward0", 1, "0",
  "∂zero_(x)/∂x = 0",
  zero_backward, zero_local_grad
};

/* fill_ with a Python number is FillBackward2 in PyTorch 1.13 (the tensor
 * overload would be FillBackward3). args.scalar[0]: the value. */
const CrOpInfo cr_op_row_FILL = {
  CR_OP_FILL, "fill_", "FillBackward2", 1, "fill",
  "∂fill_(x, v)/∂x = 0",
  zero_backward, zero_local_grad
};

static gboolean
fill_with (CrOpId     op,
           CrTensor  *self,
           double     value,
           GError   **error)
{
  CrNode *node;

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (!cr_kernel_fill (self, value, error))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (op, &self, 1)) != NULL && op == CR_OP_FILL)
    {
      cr_node_args (node)->scalar[0] = value;
      cr_node_args (node)->has_scalar[0] = TRUE;
    }
  return TRUE;
}

gboolean
cr_zero_ (CrTensor  *self,
          GError   **error)
{
  return fill_with (CR_OP_ZERO, self, 0.0, error);
}

gboolean
cr_fill_ (CrTensor  *self,
          double     value,
          GError   **error)
{
  return fill_with (CR_OP_FILL, self, value, error);
}

/* ---- copy_ ------------------------------------------------------------- */

static gboolean
copy_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  if (!zeros_for_inputs (node, grads, grad_inputs, 1, error))
    return FALSE;
  /* The engine sums the gradient to src's shape and casts it to its dtype. */
  if (cr_ops_needs_grad (node, 1))
    grad_inputs[1] = cr_tensor_ref (grads[0]);
  return TRUE;
}

static CrTensor *
copy_local_grad (CrNode  *node,
                 guint    input,
                 GError **error)
{
  const CrTensorMeta *meta = &node->output_meta[0];

  return cr_tensor_new_full (meta->shape, meta->ndim, input == 0 ? 0.0 : 1.0, meta->dtype,
                             meta->device, error);
}

/* PyTorch prints this node as <CopyBackwards> (its name() is the C++
 * "torch::autograd::CopyBackwards"). */
const CrOpInfo cr_op_row_COPY = {
  CR_OP_COPY, "copy_", "CopyBackwards", 2, "copy",
  "∂copy_(dst, src)/∂dst = 0,  ∂/∂src = 1",
  copy_backward, copy_local_grad
};

gboolean
cr_copy_ (CrTensor  *self,
          CrTensor  *src,
          GError   **error)
{
  CrTensor *inputs[2] = { self, src };

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (!cr_kernel_copy_into (self, src, error))
    return FALSE;
  cr_tensor_bump_version (self);
  cr_ops_rebase_history (CR_OP_COPY, inputs, 2);
  return TRUE;
}

/* ---- clamp_ ------------------------------------------------------------ */

/* self clamped in place, recorded as op: CLAMP (args: min, max), or
 * CLAMP_MIN / CLAMP_MAX (args.scalar[0]: the one bound). */
static gboolean
clamp_inplace (CrOpId     op,
               CrTensor  *self,
               gboolean   has_min,
               double     min,
               gboolean   has_max,
               double     max,
               GError   **error)
{
  g_autoptr(CrTensor) old_self = NULL;
  g_autoptr(CrTensor) clamped = NULL;
  CrNode *node;

  if (!cr_ops_check_clamp_bounds (has_min, has_max, error)
      || !cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (cr_autograd_should_record (&self, 1) && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;
  clamped = cr_kernel_clamp (self, has_min, min, has_max, max, error);
  if (clamped == NULL || !cr_kernel_copy_into (self, clamped, error))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (op, &self, 1)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      args->scalar[0] = op == CR_OP_CLAMP_MAX ? max : min;
      args->has_scalar[0] = op == CR_OP_CLAMP_MAX ? has_max : has_min;
      if (op == CR_OP_CLAMP)
        {
          args->scalar[1] = max;
          args->has_scalar[1] = has_max;
        }
      cr_node_save (node, 0, old_self, FALSE);
    }
  return TRUE;
}

gboolean
cr_clamp_ (CrTensor  *self,
           gboolean   has_min,
           double     min,
           gboolean   has_max,
           double     max,
           GError   **error)
{
  return clamp_inplace (CR_OP_CLAMP, self, has_min, min, has_max, max, error);
}

gboolean
cr_clamp_bound_ (CrTensor  *self,
                 gboolean   is_max,
                 double     bound,
                 GError   **error)
{
  return clamp_inplace (is_max ? CR_OP_CLAMP_MAX : CR_OP_CLAMP_MIN, self, !is_max, bound, is_max,
                        bound, error);
}

/* ---- t_, unsqueeze_, squeeze_ ------------------------------------------ */

static gboolean
t_inplace_backward (CrNode          *node,
                    CrTensor *const *grads,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  (void) node;
  grad_inputs[0] = cr_t (grads[0], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_T_INPLACE = {
  CR_OP_T_INPLACE, "t_", "TBackward1", 1, "ᵀ",
  "∂(Aᵀ)/∂A: G ↦ Gᵀ", t_inplace_backward, NULL
};

static gboolean
unsqueeze_inplace_backward (CrNode          *node,
                            CrTensor *const *grads,
                            CrTensor       **grad_inputs,
                            GError         **error)
{
  grad_inputs[0] = cr_squeeze_dim (grads[0], node->args->dims[0], error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_UNSQUEEZE_INPLACE = {
  CR_OP_UNSQUEEZE_INPLACE, "unsqueeze_", "UnsqueezeBackward1", 1, "unsqueeze",
  "∂out/∂x: G ↦ G.squeeze(dim)", unsqueeze_inplace_backward, NULL
};

static gboolean
squeeze_inplace_backward (CrNode          *node,
                          CrTensor *const *grads,
                          CrTensor       **grad_inputs,
                          GError         **error)
{
  grad_inputs[0] = cr_reshape (grads[0], node->input_meta[0].shape, node->input_meta[0].ndim,
                               error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_SQUEEZE_INPLACE = {
  CR_OP_SQUEEZE_INPLACE, "squeeze_", "SqueezeBackward2", 1, "squeeze",
  "∂out/∂x: G ↦ G.reshape(x.shape)", squeeze_inplace_backward, NULL
};

/* Gives self a new geometry over the same memory. The node is made before
 * the change so that it keeps self's old shape as its input's; only the
 * tensor itself changes (a view's base keeps its own history, as PyTorch's
 * in-place view ops do). */
static void
restride (CrOpId        op,
          CrTensor     *self,
          const gint64 *shape,
          const gint64 *strides,
          int           ndim,
          int           dim)
{
  CrNode *node = NULL;

  if (cr_autograd_should_record (&self, 1) && cr_dtype_is_floating (self->dtype))
    {
      node = cr_node_new (op, &self, 1, 1);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
    }
  for (int d = 0; d < ndim; d++)
    {
      self->shape[d] = shape[d];
      self->strides[d] = strides[d];
    }
  self->ndim = ndim;
  cr_tensor_bump_version (self);
  if (node != NULL)
    {
      cr_autograd_set_history (self, node, 0);
      cr_node_unref (node);
    }
}

gboolean
cr_t_ (CrTensor  *self,
       GError   **error)
{
  gint64 shape[2], strides[2];

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (self->ndim > 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "t_() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim);
      return FALSE;
    }
  for (int d = 0; d < self->ndim; d++)
    {
      shape[d] = self->shape[self->ndim - 1 - d];
      strides[d] = self->strides[self->ndim - 1 - d];
    }
  restride (CR_OP_T_INPLACE, self, shape, strides, self->ndim, 0);
  return TRUE;
}

gboolean
cr_unsqueeze_ (CrTensor  *self,
               int        dim,
               GError   **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (self->ndim >= CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return FALSE;
    }
  if (!cr_ops_wrap_dim (&dim, self->ndim + 1, error))
    return FALSE;
  for (int d = 0, j = 0; d <= self->ndim; d++)
    if (d == dim)
      {
        shape[d] = 1;
        strides[d] = dim >= self->ndim ? 1 : self->shape[dim] * self->strides[dim];
      }
    else
      {
        shape[d] = self->shape[j];
        strides[d] = self->strides[j];
        j++;
      }
  restride (CR_OP_UNSQUEEZE_INPLACE, self, shape, strides, self->ndim + 1, dim);
  return TRUE;
}

gboolean
cr_squeeze_ (CrTensor  *self,
             gboolean   has_dim,
             int        dim,
             GError   **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int ndim = 0;

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (has_dim && !cr_ops_wrap_dim (&dim, self->ndim, error))
    return FALSE;
  for (int d = 0; d < self->ndim; d++)
    if (self->shape[d] != 1 || (has_dim && d != dim))
      {
        shape[ndim] = self->shape[d];
        strides[ndim] = self->strides[d];
        ndim++;
      }
  restride (has_dim ? CR_OP_SQUEEZE_INPLACE_DIM : CR_OP_SQUEEZE_INPLACE, self, shape, strides,
            ndim, has_dim ? dim : 0);
  return TRUE;
}
