/* cr-ops-masked-fill.c — x.masked_fill(mask, value) and its in-place form,
 * as PyTorch 1.13 does them: MaskedFillBackward0, whose gradient for x is
 * the incoming one with the masked places zeroed, and for a tensor value the
 * sum of the masked places.
 */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-cuda.h"

#include <string.h>

/* MASKED_FILL: inputs (x, value); saved[0] the mask (bool, broadcast to x). */
static gboolean
masked_fill_backward (CrNode          *node,
                      CrTensor *const *grad_outputs,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  CrTensor *grad = grad_outputs[0];
  g_autoptr(CrTensor) mask = cr_node_get_saved (node, 0, error);
  g_autoptr(CrTensor) zero = NULL;

  if (mask == NULL)
    return FALSE;
  zero = cr_tensor_new_scalar (0.0, grad->dtype);
  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) g = cr_where (mask, zero, grad, error);
      if (g == NULL)
        return FALSE;
      grad_inputs[0] = cr_sum_to_shape (g, node->input_meta[0].shape,
                                        node->input_meta[0].ndim, error);
      if (grad_inputs[0] == NULL)
        return FALSE;
    }
  if (node->n_inputs > 1 && cr_ops_needs_grad (node, 1))
    {
      g_autoptr(CrTensor) g = cr_where (mask, grad, zero, error);
      if (g == NULL)
        return FALSE;
      grad_inputs[1] = cr_sum (g, error);
      if (grad_inputs[1] == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_MASKED_FILL = {
  CR_OP_MASKED_FILL, "masked_fill", "MaskedFillBackward0", 2, "fill",
  "∂out/∂x = G where not mask,  ∂out/∂v = Σ G where mask", masked_fill_backward, NULL
};

CrTensor *
cr_masked_fill (CrTensor  *x,
                CrTensor  *mask,
                CrTensor  *value,
                GError   **error)
{
  g_autoptr(CrTensor) bmask = NULL;
  g_autoptr(CrTensor) fill = NULL;
  CrTensor *inputs[2] = { x, value };
  CrTensor *out;

  if (value->ndim != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                   "with %d dimension(s).", value->ndim);
      return NULL;
    }
  bmask = mask->dtype == CR_DTYPE_BOOL ? cr_tensor_ref (mask)
                                       : cr_kernel_cast (mask, CR_DTYPE_BOOL, error);
  if (bmask == NULL)
    return NULL;
  fill = value->dtype == x->dtype ? cr_tensor_ref (value) : cr_kernel_cast (value, x->dtype, error);
  if (fill == NULL)
    return NULL;
  out = cr_kernel_where (bmask, fill, x, error);
  if (out == NULL)
    return NULL;
  /* A Python number is PyTorch's masked_fill.Scalar: one input. */
  if (cr_autograd_should_record (inputs, value->is_wrapped_number ? 1 : 2))
    {
      CrNode *node = cr_node_new (CR_OP_MASKED_FILL, inputs, value->is_wrapped_number ? 1 : 2, 1);
      cr_node_save (node, 0, bmask, FALSE);
      cr_ops_note_wrapped_number (node, value);
      cr_ops_attach (out, node);
    }
  return out;
}

/* x.masked_fill_(mask, value): written in place, recorded as masked_fill
 * on self's history (through CopySlices when self is a view), as PyTorch's
 * in-place MaskedFillBackward0. */
gboolean
cr_masked_fill_ (CrTensor  *self,
                 CrTensor  *mask,
                 CrTensor  *value,
                 GError   **error)
{
  CrTensor *inputs[2] = { self, value };
  guint n_inputs = value->is_wrapped_number ? 1 : 2;
  g_autoptr(CrTensor) bmask = NULL;
  g_autoptr(CrTensor) fill = NULL;
  g_autoptr(CrTensor) out = NULL;
  CrNode *node;

  if (value->ndim != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                   "with %d dimension(s).", value->ndim);
      return FALSE;
    }
  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  bmask = mask->dtype == CR_DTYPE_BOOL ? cr_tensor_ref (mask)
                                       : cr_kernel_cast (mask, CR_DTYPE_BOOL, error);
  fill = bmask == NULL ? NULL
         : value->dtype == self->dtype ? cr_tensor_ref (value)
         : cr_kernel_cast (value, self->dtype, error);
  out = fill != NULL ? cr_kernel_where (bmask, fill, self, error) : NULL;
  if (out == NULL)
    return FALSE;
  if (out->ndim != self->ndim || memcmp (out->shape, self->shape, sizeof (gint64) * self->ndim))
    {
      g_autofree char *os = cr_shape_to_string (self->shape, self->ndim);
      g_autofree char *bs = cr_shape_to_string (out->shape, out->ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "output with shape %s doesn't match the broadcast shape %s", os, bs);
      return FALSE;
    }
  if (!cr_kernel_copy_into (self, out, error))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (CR_OP_MASKED_FILL, inputs, n_inputs)) != NULL)
    {
      cr_node_save (node, 0, bmask, FALSE);
      cr_ops_note_wrapped_number (node, value);
    }
  return TRUE;
}
