/* cr-ops-masked-select.c — torch.masked_select(x, mask): the elements of x
 * where mask (broadcast with x) is true, as a 1-d tensor, recorded as
 * PyTorch 1.13's MaskedSelectBackward0 over x, whose backward puts the
 * gradient back at those places of zeros in the broadcast shape
 * (masked_scatter_: MaskedScatterBackward0 under create_graph) and sums it
 * down to x's shape.
 *
 * Built on the flat-position gather and scatter that indexing uses
 * (cr_kernel_nonzero_flat, cr_kernel_take, cr_ops_scatter_add_flat), so it
 * runs on every backend without kernels of its own.
 *
 * Slots: 0 the flat positions taken (in the broadcast shape), 1 self and
 * 2 mask (kept to show, as _saved_self and _saved_mask; the backward's
 * MaskedScatterBackward0 keeps the mask too). args.dims / n_dims: the
 * broadcast shape. */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* MASKED_SCATTER: zeros.masked_scatter_(mask, source), the backward of
 * masked_select as PyTorch 1.13 writes it, so a create_graph backward
 * records MaskedScatterBackward0. Inputs (self: the zeros, source);
 * saved[0] the flat positions written, [1] the mask (_saved_mask). */
static gboolean
masked_scatter_backward (CrNode          *node,
                         CrTensor *const *grad_outputs,
                         CrTensor       **grad_inputs,
                         GError         **error)
{
  CrTensor *g = grad_outputs[0];
  SAVED (pos, 0);

  if (cr_ops_needs_grad (node, 0))
    {
      /* G with the scattered places zeroed (grad.masked_fill(mask, 0)). */
      g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, g->dtype);
      g_autoptr(CrTensor) kept = cr_tensor_copy (g, error);

      if (kept == NULL || !cr_kernel_put (kept, pos, zero, FALSE, error))
        return FALSE;
      grad_inputs[0] = g_steal_pointer (&kept);
    }
  if (cr_ops_needs_grad (node, 1))
    {
      const CrTensorMeta *sm = &node->input_meta[1];
      g_autoptr(CrTensor) taken = cr_ops_take_flat (g, pos, error);

      if (taken == NULL)
        return FALSE;
      SET_GRAD (1, cr_reshape (taken, sm->shape, sm->ndim, error));
    }
  return TRUE;
}

const CrOpInfo cr_op_row_MASKED_SCATTER = {
  CR_OP_MASKED_SCATTER, "masked_scatter", "MaskedScatterBackward0", 2, "[mask]=",
  "∂out/∂source: G read back where mask is true;  ∂out/∂self: G, 0 where mask is true",
  masked_scatter_backward, NULL
};

/* Zeros of meta's shape with source written at pos, recording
 * MASKED_SCATTER over (the zeros, source) when source requires grad. */
static CrTensor *
scatter_into_zeros (CrTensor            *source,
                    CrTensor            *pos,
                    CrTensor            *mask,
                    const CrTensorMeta  *meta,
                    GError             **error)
{
  g_autoptr(CrTensor) zeros = cr_tensor_new_zeros (meta->shape, meta->ndim, source->dtype,
                                                   source->device, error);
  g_autoptr(CrTensor) out = zeros != NULL ? cr_tensor_copy (zeros, error) : NULL;
  CrTensor *inputs[2] = { zeros, source };

  if (out == NULL || !cr_kernel_put (out, pos, source, FALSE, error))
    return NULL;
  if (cr_autograd_should_record (inputs, 2))
    {
      CrNode *node = cr_node_new (CR_OP_MASKED_SCATTER, inputs, 2, 1);

      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, mask, FALSE);
      cr_ops_attach (out, node);
    }
  return g_steal_pointer (&out);
}

static gboolean
masked_select_backward (CrNode          *node,
                        CrTensor *const *grad_outputs,
                        CrTensor       **grad_inputs,
                        GError         **error)
{
  const CrTensorMeta *xm = &node->input_meta[0];
  gint64 shape[CR_MAX_DIMS];
  CrTensorMeta full = *xm;
  g_autoptr(CrTensor) spread = NULL;
  SAVED (pos, 0);
  SAVED (mask, 2);

  if (!cr_ops_check_saved_from (node, 1, error))
    return FALSE;
  for (int d = 0; d < node->args->n_dims; d++)
    shape[d] = node->args->dims[d];
  full.shape = shape;
  full.ndim = node->args->n_dims;
  spread = scatter_into_zeros (grad_outputs[0], pos, mask, &full, error);
  if (spread == NULL)
    return FALSE;
  SET_GRAD (0, cr_sum_to_shape (spread, xm->shape, xm->ndim, error));
  return TRUE;
}

const CrOpInfo cr_op_row_MASKED_SELECT = {
  CR_OP_MASKED_SELECT, "masked_select", "MaskedSelectBackward0", 1, "[mask]",
  "∂x[mask]/∂x: G put back where mask is true, 0 elsewhere",
  masked_select_backward, NULL
};

CrTensor *
cr_masked_select (CrTensor  *x,
                  CrTensor  *mask,
                  GError   **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  g_autoptr(CrTensor) wide_mask = NULL;
  g_autoptr(CrTensor) wide_x = NULL;
  g_autoptr(CrTensor) pos = NULL;
  CrTensor *out;

  if (mask->dtype != CR_DTYPE_BOOL && mask->dtype != CR_DTYPE_UINT8)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "masked_select: expected BoolTensor or ByteTensor for mask");
      return NULL;
    }
  /* PyTorch broadcasts (mask, self) in that order: its message names the
   * mask as tensor a. */
  if (!cr_shape_broadcast (mask->shape, mask->ndim, x->shape, x->ndim, shape, &ndim, error))
    return NULL;
  {
    /* Views in the broadcast shape, not recorded: the node is over x. */
    gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);

    wide_mask = cr_expand (mask, shape, ndim, error);
    wide_x = wide_mask != NULL ? cr_expand (x, shape, ndim, error) : NULL;
    cr_grad_mode_set_enabled (was_enabled);
  }
  pos = wide_x != NULL ? cr_kernel_nonzero_flat (wide_mask, error) : NULL;
  pos = cr_ops_positions_to (g_steal_pointer (&pos), x->device, error);
  out = pos != NULL ? cr_kernel_take (wide_x, pos, error) : NULL;
  if (out == NULL)
    return NULL;
  if (cr_autograd_should_record (&x, 1))
    {
      CrNode *node = cr_node_new (CR_OP_MASKED_SELECT, &x, 1, 1);
      CrOpArgs *args = cr_node_args (node);

      args->n_dims = ndim;
      for (int d = 0; d < ndim; d++)
        args->dims[d] = (int) shape[d];
      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, x, FALSE);
      cr_node_save (node, 2, mask, FALSE);
      cr_ops_attach (out, node);
    }
  return out;
}
