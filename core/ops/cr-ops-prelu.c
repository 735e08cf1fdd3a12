/* cr-ops-prelu.c — F.prelu / nn.PReLU (PreluBackward0): x where x > 0,
 * else weight·x, the weight one number or one per channel (dim 1).
 *
 * The forward is PyTorch's input > 0 ? input : weight * input; the
 * backward sends grad (times weight where x ≤ 0) to x and, to the weight,
 * x·grad where x ≤ 0 summed over every dim but the channel's. Built from
 * comparisons, products, where and sums, which every backend has. */
#include "cr-ops-private.h"

#include "cr-error.h"

/* The weight viewed to broadcast along x's channel dim: (C, 1, ..., 1)
 * for x (N, C, ...), as is for a single weight or x of fewer dims; a
 * recorded view in a backward formula, a plain one for the forward's
 * kernels. */
static CrTensor *
weight_along_channels (CrTensor        *weight,
                       const CrTensor  *x,
                       gboolean         recorded,
                       GError         **error)
{
  gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
  int ndim = x->ndim - 1;

  if (weight->numel == 1 || x->ndim < 2)
    return cr_tensor_ref (weight);
  shape[0] = weight->numel;
  for (int d = 1; d < ndim; d++)
    shape[d] = 1;
  if (recorded)
    return cr_view (weight, shape, ndim, error);
  cr_shape_contiguous_strides (shape, ndim, strides);
  strides[0] = weight->strides[0];
  return cr_tensor_new_view (weight, shape, ndim, strides, weight->offset);
}

/* saved[0] self, saved[1] weight. */
static gboolean
prelu_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  g_autoptr(CrTensor) positive = NULL;
  g_autoptr(CrTensor) w = NULL;
  SAVED (x, 0);
  SAVED (weight, 1);

  if ((positive = cr_ops_k_num (CR_BINARY_GT, x, 0.0, error)) == NULL
      || (w = weight_along_channels (weight, x, TRUE, error)) == NULL)
    return FALSE;
  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) scaled = cr_mul (w, grads[0], error);

      SET_GRAD (0, scaled != NULL ? cr_where (positive, grads[0], scaled, error) : NULL);
    }
  if (cr_ops_needs_grad (node, 1))
    {
      g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);
      g_autoptr(CrTensor) product = cr_mul (x, grads[0], error);
      g_autoptr(CrTensor) collected = product != NULL ? cr_where (positive, zero, product, error) : NULL;
      g_autoptr(CrTensor) summed = NULL;
      int dims[CR_MAX_DIMS], n_dims = 0;

      if (collected == NULL)
        return FALSE;
      /* Every dim but the channel's, or all of them for one weight. */
      for (int d = 0; d < x->ndim; d++)
        if (weight->numel == 1 || x->ndim < 2 || d != 1)
          dims[n_dims++] = d;
      summed = n_dims == x->ndim ? cr_sum (collected, error)
                                 : cr_sum_dim (collected, dims, n_dims, FALSE, error);
      SET_GRAD (1, summed != NULL ? cr_reshape (summed, node->input_meta[1].shape,
                                                node->input_meta[1].ndim, error) : NULL);
    }
  return TRUE;
}

const CrOpInfo cr_op_row_PRELU = {
  CR_OP_PRELU, "prelu", "PreluBackward0", 2, "prelu",
  "∂prelu(x, a)/∂x = 1 where x > 0, else a;  ∂/∂a = x where x ≤ 0, else 0",
  prelu_backward, NULL
};

CrTensor *
cr_prelu (CrTensor  *x,
          CrTensor  *weight,
          GError   **error)
{
  gint64 channels = x->ndim >= 2 ? x->shape[1] : 1;
  CrTensor *inputs[2] = { x, weight };
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) scaled = NULL;
  g_autoptr(CrTensor) positive = NULL;
  CrTensor *out;
  CrNode *node;

  if (weight->numel != 1 && weight->numel != channels)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Mismatch of parameter numbers and input channel size. Found parameter "
                   "numbers = %" G_GINT64_FORMAT " and channel size = %" G_GINT64_FORMAT ".",
                   weight->numel, channels);
      return NULL;
    }
  if ((w = weight_along_channels (weight, x, FALSE, error)) == NULL
      || (scaled = cr_kernel_binary (CR_BINARY_MUL, w, x, error)) == NULL
      || (positive = cr_ops_k_num (CR_BINARY_GT, x, 0.0, error)) == NULL
      || (out = cr_kernel_where (positive, x, scaled, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_PRELU, inputs, 2, out)) != NULL)
    {
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, weight, FALSE);
    }
  return out;
}
