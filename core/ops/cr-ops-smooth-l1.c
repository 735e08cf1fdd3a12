/* cr-ops-smooth-l1.c — F.smooth_l1_loss: SmoothL1LossBackward0, its forward
 * computed with grad mode off from existing ops and recorded as one node with
 * input and target saved. (The activations with parameters that lived here,
 * leaky_relu, elu, softplus, gelu, are rows of core/cr-unary-ops.def.) */
#include "cr-ops-private.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

static CrTensor *
times_number (CrTensor  *t,
              double     value,
              GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (value, FALSE);

  return cr_mul (t, n, error);
}

/* ---- smooth_l1_loss ---------------------------------------------------- */

/* The reduction of an elementwise loss (differentiable). */
static CrTensor *
reduce (CrTensor     *loss,
        CrReduction   reduction,
        GError      **error)
{
  if (reduction == CR_REDUCTION_MEAN)
    return cr_mean (loss, error);
  if (reduction == CR_REDUCTION_SUM)
    return cr_sum (loss, error);
  return cr_tensor_ref (loss);
}

/* ∂/∂input = where(|d| < β, d / β, sign(d)) · grad (/ N for mean), one op
 * (SmoothL1LossBackwardBackward0 under create_graph), and the same with
 * input and target swapped for the target. Saved: input (0), target (1). */
static gboolean
smooth_l1_backward (CrNode          *node,
                    CrTensor *const *grads,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  double beta = node->args->scalar[0];
  SAVED (input, 0);
  SAVED (target, 1);

  return cr_pair_loss_grads (CR_OP_SMOOTH_L1_LOSS, node, grads[0], input, target, reduction, beta,
                             grad_inputs, error);
}

/* args.ints[0]: the reduction, scalar[0]: beta; input and target saved. */
const CrOpInfo cr_op_row_SMOOTH_L1_LOSS = {
  CR_OP_SMOOTH_L1_LOSS, "smooth_l1_loss", "SmoothL1LossBackward0", 2, "sl1",
  "∂L/∂x = (x − y)/β where |x − y| < β, sign(x − y) elsewhere",
  smooth_l1_backward, NULL
};

CrTensor *
cr_smooth_l1_loss (CrTensor     *input,
                   CrTensor     *target,
                   CrReduction   reduction,
                   double        beta,
                   GError      **error)
{
  CrTensor *inputs[2] = { input, target };
  gboolean was_enabled;
  CrTensor *out = NULL;

  if (beta < 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "smooth_l1_loss does not support negative values for beta.");
      return NULL;
    }
  if (!cr_shape_equal (input->shape, input->ndim, target->shape, target->ndim))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "smooth_l1_loss with a target of another shape is not supported "
                           "by Chainrule yet");
      return NULL;
    }
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  {
    g_autoptr(CrTensor) d = cr_sub (input, target, error);
    g_autoptr(CrTensor) ad = d != NULL ? cr_unary (CR_OP_ABS, d, error) : NULL;
    g_autoptr(CrTensor) beta_t = cr_ops_wrap_number (beta, FALSE);
    g_autoptr(CrTensor) small = ad != NULL ? cr_binary_nograd (CR_BINARY_LT, ad, beta_t, error)
                                           : NULL;
    g_autoptr(CrTensor) sq = small != NULL ? cr_mul (d, d, error) : NULL;
    g_autoptr(CrTensor) quad = sq != NULL && beta > 0 ? times_number (sq, 0.5 / beta, error)
                                                      : NULL;
    g_autoptr(CrTensor) half = cr_ops_wrap_number (0.5 * beta, FALSE);
    g_autoptr(CrTensor) lin = sq != NULL ? cr_sub (ad, half, error) : NULL;
    g_autoptr(CrTensor) loss = NULL;

    if (lin != NULL)
      loss = beta > 0 ? cr_where (small, quad, lin, error) : cr_tensor_ref (lin);
    if (loss != NULL)
      out = reduce (loss, reduction, error);
  }
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL && cr_autograd_should_record (inputs, 2))
    {
      CrNode *node = cr_node_new (CR_OP_SMOOTH_L1_LOSS, inputs, 2, 1);
      cr_node_args (node)->ints[0] = reduction;
      cr_node_args (node)->scalar[0] = beta;
      cr_node_save (node, 0, input, FALSE);
      cr_node_save (node, 1, target, FALSE);
      cr_ops_attach (out, node);
    }
  return out;
}
