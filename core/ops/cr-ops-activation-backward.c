/* cr-ops-activation-backward.c — the backward of activations whose
 * derivative takes a parameter, as ops of their own: a create_graph
 * backward through leaky_relu records PyTorch's LeakyReluBackwardBackward0
 * (grad, self), as tanh's records TanhBackwardBackward0, and the gradient
 * it gives stays differentiable in self even where that is zero. */
#include "cr-ops-private.h"

#include "cr-tensor.h"

/* Slots: 1 self (the input, or the output of leaky_relu_); args.scalar[0]
 * the negative slope. */

static gboolean
leaky_relu_backward_backward (CrNode          *node,
                              CrTensor *const *grads,
                              CrTensor       **grad_inputs,
                              GError         **error)
{
  if (cr_ops_needs_grad (node, 0))
    {
      SAVED (self, 1);
      SET_GRAD (0, cr_leaky_relu_backward (grads[0], self, node->args->scalar[0], error));
    }
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_tensor_new_zeros (grads[0]->shape, grads[0]->ndim, grads[0]->dtype,
                                      grads[0]->device, error));
  return TRUE;
}

static CrTensor *
leaky_relu_backward_local_grad (CrNode  *node,
                                guint    input,
                                GError **error)
{
  if (input == 0)
    {
      SAVED_OR_NULL (self, 1);
      g_autoptr(CrTensor) positive = cr_ops_k_num (CR_BINARY_GT, self, 0.0, error);
      g_autoptr(CrTensor) one = positive != NULL ? cr_ops_full_output (node, 1.0, error) : NULL;
      g_autoptr(CrTensor) slope = one != NULL ? cr_ops_full_output (node, node->args->scalar[0], error)
                                              : NULL;

      return cr_ops_take_to_output (node, slope != NULL ? cr_kernel_where (positive, one, slope, error)
                                                        : NULL, error);
    }
  return cr_ops_full_output (node, 0.0, error);
}

const CrOpInfo cr_op_row_LEAKY_RELU_BACKWARD = {
  CR_OP_LEAKY_RELU_BACKWARD, "leaky_relu_backward", "LeakyReluBackwardBackward0", 2, "lReLU′",
  "g·(1 if x > 0, else slope):  ∂/∂g = 1 if x > 0, else slope,  ∂/∂x = 0",
  leaky_relu_backward_backward, leaky_relu_backward_local_grad
};

CrTensor *
cr_leaky_relu_backward (CrTensor  *grad,
                        CrTensor  *self,
                        double     negative_slope,
                        GError   **error)
{
  CrTensor *inputs[2] = { grad, self };
  g_autoptr(CrTensor) positive = cr_ops_k_num (CR_BINARY_GT, self, 0.0, error);
  g_autoptr(CrTensor) scaled = positive != NULL ? cr_ops_k_num (CR_BINARY_MUL, grad, negative_slope, error)
                                                : NULL;
  CrTensor *out = scaled != NULL ? cr_kernel_where (positive, grad, scaled, error) : NULL;
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_LEAKY_RELU_BACKWARD, inputs, 2, out)) != NULL)
    {
      cr_node_save (node, 1, self, FALSE);
      cr_node_args (node)->scalar[0] = negative_slope;
      cr_node_args (node)->has_scalar[0] = TRUE;
    }
  return out;
}
