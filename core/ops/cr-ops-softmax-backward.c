/* cr-ops-softmax-backward.c — softmax's and log_softmax's backward as ops of
 * their own (PyTorch's _softmax_backward_data and
 * _log_softmax_backward_data): one kernel, on every backend, and with
 * create_graph the gradient's node is SoftmaxBackwardDataBackward0 (or
 * LogSoftmaxBackwardDataBackward0) over (grad_output, output), whose own
 * backward is PyTorch's softmax_double_backward. */
#include "cr-ops-private.h"

#include "cr-kernels.h"
#include "cr-tensor.h"

/* Inputs (grad_output, output); saved 0 grad_output, 1 output; args.dims[0]
 * the dim. */

/* t summed along dim, keepdim (NULL stays NULL). */
static CrTensor *
row_sum (CrTensor  *t,
         int        dim,
         GError   **error)
{
  return t != NULL ? cr_sum_dim (t, &dim, 1, TRUE, error) : NULL;
}

/* softmax: ∂/∂grad_output is the op itself; ∂/∂output is
 * grad_output·gg − Σ(output·grad_output)·gg − grad_output·Σ(output·gg). */
static gboolean
softmax_backward_data_backward (CrNode          *node,
                                CrTensor *const *grads,
                                CrTensor       **grad_inputs,
                                GError         **error)
{
  CrTensor *gg = grads[0];
  int dim = node->args->dims[0];
  SAVED (out, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_softmax_backward_data (gg, out, dim, FALSE, error));
  if (cr_ops_needs_grad (node, 1))
    {
      SAVED (go, 0);
      g_autoptr(CrTensor) go_gg = cr_mul (go, gg, error);
      g_autoptr(CrTensor) out_go = go_gg != NULL ? cr_mul (out, go, error) : NULL;
      g_autoptr(CrTensor) s1 = row_sum (out_go, dim, error);
      g_autoptr(CrTensor) s1_gg = s1 != NULL ? cr_mul (s1, gg, error) : NULL;
      g_autoptr(CrTensor) d = s1_gg != NULL ? cr_sub (go_gg, s1_gg, error) : NULL;
      g_autoptr(CrTensor) out_gg = d != NULL ? cr_mul (out, gg, error) : NULL;
      g_autoptr(CrTensor) s2 = row_sum (out_gg, dim, error);
      g_autoptr(CrTensor) go_s2 = s2 != NULL ? cr_mul (go, s2, error) : NULL;

      SET_GRAD (1, go_s2 != NULL ? cr_sub (d, go_s2, error) : NULL);
    }
  return TRUE;
}

/* log_softmax: ∂/∂grad_output is gg − Σ(gg·exp(output)); ∂/∂output is
 * −Σgrad_output·exp(output)·gg. */
static gboolean
log_softmax_backward_data_backward (CrNode          *node,
                                    CrTensor *const *grads,
                                    CrTensor       **grad_inputs,
                                    GError         **error)
{
  CrTensor *gg = grads[0];
  int dim = node->args->dims[0];
  SAVED (out, 1);

  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) e = cr_exp (out, error);
      g_autoptr(CrTensor) gg_e = e != NULL ? cr_mul (gg, e, error) : NULL;
      g_autoptr(CrTensor) s = row_sum (gg_e, dim, error);

      SET_GRAD (0, s != NULL ? cr_sub (gg, s, error) : NULL);
    }
  if (cr_ops_needs_grad (node, 1))
    {
      SAVED (go, 0);
      g_autoptr(CrTensor) s = row_sum (go, dim, error);
      g_autoptr(CrTensor) n = s != NULL ? cr_neg (s, error) : NULL;
      g_autoptr(CrTensor) e = n != NULL ? cr_exp (out, error) : NULL;
      g_autoptr(CrTensor) ne = e != NULL ? cr_mul (n, e, error) : NULL;

      SET_GRAD (1, ne != NULL ? cr_mul (ne, gg, error) : NULL);
    }
  return TRUE;
}

const CrOpInfo cr_op_row_SOFTMAX_BACKWARD_DATA = {
  CR_OP_SOFTMAX_BACKWARD_DATA, "_softmax_backward_data", "SoftmaxBackwardDataBackward0", 2,
  "softmax′", "G ↦ s ⊙ (G − Σ(G ⊙ s))", softmax_backward_data_backward, NULL
};

const CrOpInfo cr_op_row_LOG_SOFTMAX_BACKWARD_DATA = {
  CR_OP_LOG_SOFTMAX_BACKWARD_DATA, "_log_softmax_backward_data",
  "LogSoftmaxBackwardDataBackward0", 2, "log_softmax′", "G ↦ G − exp(y) ⊙ ΣG",
  log_softmax_backward_data_backward, NULL
};

CrTensor *
cr_softmax_backward_data (CrTensor  *grad,
                          CrTensor  *out,
                          int        dim,
                          gboolean   log,
                          GError   **error)
{
  CrTensor *inputs[2] = { grad, out };
  g_autoptr(CrTensor) g1 = cr_ops_as_1d (grad);
  g_autoptr(CrTensor) o1 = cr_ops_as_1d (out);
  g_autoptr(CrTensor) r = cr_kernel_softmax_backward (g1, o1, dim, log, error);
  CrTensor *result;
  CrNode *node;

  if (r == NULL)
    return NULL;
  result = cr_ops_as_0d (r, out->ndim);
  node = cr_ops_record (log ? CR_OP_LOG_SOFTMAX_BACKWARD_DATA : CR_OP_SOFTMAX_BACKWARD_DATA,
                        inputs, 2, result);
  if (node != NULL)
    {
      cr_node_save (node, 0, grad, FALSE);
      cr_node_save (node, 1, out, FALSE);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
    }
  return result;
}
