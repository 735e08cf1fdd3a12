/* cr-ops-loss-backward.c — the backward of mse_loss, smooth_l1_loss and
 * huber_loss as ops of their own, over (grad_output, self, target): a
 * create_graph backward through them records PyTorch's
 * MseLossBackwardBackward0, SmoothL1LossBackwardBackward0 and
 * HuberLossBackwardBackward0 (the target's gradient is its negation).
 *
 * Each is local(d)·grad_output (/ N for a mean), d = self − target:
 *   mse        local = 2d,                         local′ = 2
 *   smooth_l1  local = d/β where |d| < β, sign(d);  local′ = 1/β where |d| < β
 *   huber      local = clamp(d, −δ, δ),            local′ = 1 where |d| < δ
 * Its backward (PyTorch's *_double_backward): gg·grad_output·local′(d) (/ N)
 * for self, its negation for target, and local(d)·gg (/ N) for
 * grad_output, summed to a number unless the reduction is none.
 * Slots: 0 grad_output, 1 self, 2 target; args.ints[0] the reduction,
 * args.scalar[0] beta or delta. */
#include "cr-ops-private.h"

#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* local(d), with differentiable ops. */
static CrTensor *
local_grad (CrOpId     op,
            CrTensor  *d,
            double     param,
            GError   **error)
{
  switch (op)
    {
    case CR_OP_MSE_LOSS_BACKWARD:
      return cr_ops_mul_number (d, 2.0, error);
    case CR_OP_SMOOTH_L1_LOSS_BACKWARD:
      {
        g_autoptr(CrTensor) ad = cr_kernel_unary (CR_UNARY_ABS, d, error);
        g_autoptr(CrTensor) small = ad != NULL ? cr_ops_k_num (CR_BINARY_LT, ad, param, error)
                                               : NULL;
        g_autoptr(CrTensor) sgn = small != NULL ? cr_unary (CR_OP_SIGN, d, error) : NULL;
        g_autoptr(CrTensor) quad = NULL;

        if (sgn == NULL || param <= 0)
          return g_steal_pointer (&sgn);
        quad = cr_binary_number (CR_OP_DIV, d, param, error);
        return quad != NULL ? cr_where (small, quad, sgn, error) : NULL;
      }
    case CR_OP_HUBER_LOSS_BACKWARD:
    default:
      return cr_clamp (d, TRUE, -param, TRUE, param, error);
    }
}

/* local′(d) as a tensor of d's shape (a constant of d: no graph). */
static CrTensor *
local_slope (CrOpId     op,
             CrTensor  *d,
             double     param,
             GError   **error)
{
  g_autoptr(CrTensor) ad = NULL;
  g_autoptr(CrTensor) inside = NULL;

  if (op == CR_OP_MSE_LOSS_BACKWARD)
    return cr_tensor_new_full (d->shape, d->ndim, 2.0, d->dtype, d->device, error);
  ad = cr_kernel_unary (CR_UNARY_ABS, d, error);
  inside = ad != NULL ? cr_ops_k_num (CR_BINARY_LT, ad, param, error) : NULL;
  if (inside == NULL)
    return NULL;
  {
    g_autoptr(CrTensor) mask = cr_kernel_cast (inside, d->dtype, error);

    if (mask == NULL || op == CR_OP_HUBER_LOSS_BACKWARD)
      return g_steal_pointer (&mask);
    return cr_ops_k_num (CR_BINARY_DIV, mask, param, error);
  }
}

/* t / N for a mean. Takes t. */
static CrTensor *
mean_scaled (CrTensor     *t,
             CrReduction   reduction,
             gint64        numel,
             GError      **error)
{
  CrTensor *out;

  if (t == NULL || reduction != CR_REDUCTION_MEAN)
    return t;
  out = cr_binary_number (CR_OP_DIV, t, (double) numel, error);
  cr_tensor_unref (t);
  return out;
}

static CrTensor *
loss_backward (CrOpId       op,
               CrTensor    *grad,
               CrTensor    *self,
               CrTensor    *target,
               CrReduction  reduction,
               double       param,
               GError     **error)
{
  CrTensor *inputs[3] = { grad, self, target };
  gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
  g_autoptr(CrTensor) d = cr_sub (self, target, error);
  g_autoptr(CrTensor) local = d != NULL ? local_grad (op, d, param, error) : NULL;
  CrTensor *result = local != NULL ? mean_scaled (cr_mul (local, grad, error), reduction,
                                                  d->numel, error)
                                   : NULL;
  CrNode *node;

  cr_grad_mode_set_enabled (was_enabled);
  if (result != NULL && (node = cr_ops_record (op, inputs, 3, result)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      for (guint i = 0; i < 3; i++)
        cr_node_save (node, i, inputs[i], FALSE);
      args->ints[0] = reduction;
      args->scalar[0] = param;
      args->has_scalar[0] = TRUE;
    }
  return result;
}

static gboolean
loss_backward_backward (CrNode          *node,
                        CrTensor *const *grads,
                        CrTensor       **grad_inputs,
                        GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  double param = node->args->scalar[0];
  CrTensor *gg = grads[0];
  SAVED (go, 0);
  SAVED (self, 1);
  SAVED (target, 2);
  g_autoptr(CrTensor) d = cr_sub (self, target, error);

  if (d == NULL)
    return FALSE;
  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) local = NULL;
      CrTensor *t;

      if (reduction == CR_REDUCTION_NONE)
        SET_GRAD (0, loss_backward (node->op->id, gg, self, target, reduction, param, error));
      else
        {
          local = local_grad (node->op->id, d, param, error);
          t = local != NULL ? mean_scaled (cr_mul (local, gg, error), reduction, d->numel, error)
                            : NULL;
          SET_GRAD (0, t != NULL ? cr_sum (t, error) : NULL);
          cr_tensor_unref (t);
        }
    }
  if (cr_ops_needs_grad (node, 1) || cr_ops_needs_grad (node, 2))
    {
      /* smooth_l1 with β = 0 is |d|: PyTorch gives plain zeros. */
      gboolean flat = node->op->id == CR_OP_SMOOTH_L1_LOSS_BACKWARD && param <= 0;
      g_autoptr(CrTensor) slope = flat ? NULL : local_slope (node->op->id, d, param, error);
      g_autoptr(CrTensor) gg_go = slope != NULL ? cr_mul (gg, go, error) : NULL;
      g_autoptr(CrTensor) g = NULL;

      if (flat)
        g = cr_tensor_new_zeros (d->shape, d->ndim, d->dtype, d->device, error);
      else if (gg_go != NULL)
        g = mean_scaled (cr_mul (gg_go, slope, error), reduction, d->numel, error);

      if (g == NULL)
        return FALSE;
      if (cr_ops_needs_grad (node, 1))
        grad_inputs[1] = cr_tensor_ref (g);
      if (cr_ops_needs_grad (node, 2))
        SET_GRAD (2, cr_neg (g, error));
    }
  return TRUE;
}

const CrOpInfo cr_op_row_MSE_LOSS_BACKWARD = {
  CR_OP_MSE_LOSS_BACKWARD, "mse_loss_backward", "MseLossBackwardBackward0", 3, "mse′",
  "g·2(x − y)/N:  ∂/∂g = 2(x − y)/N,  ∂/∂x = 2g/N,  ∂/∂y = −2g/N",
  loss_backward_backward, NULL
};

const CrOpInfo cr_op_row_SMOOTH_L1_LOSS_BACKWARD = {
  CR_OP_SMOOTH_L1_LOSS_BACKWARD, "smooth_l1_loss_backward", "SmoothL1LossBackwardBackward0", 3,
  "smoothL1′", "g·(d/β where |d| < β, else sign(d))/N:  ∂/∂x = g/(βN) where |d| < β",
  loss_backward_backward, NULL
};

const CrOpInfo cr_op_row_HUBER_LOSS_BACKWARD = {
  CR_OP_HUBER_LOSS_BACKWARD, "huber_loss_backward", "HuberLossBackwardBackward0", 3, "huber′",
  "g·clamp(d, −δ, δ)/N:  ∂/∂x = g/N where |d| < δ",
  loss_backward_backward, NULL
};

gboolean
cr_pair_loss_grads (CrOpId        loss,
                    const CrNode *node,
                    CrTensor     *grad,
                    CrTensor     *self,
                    CrTensor     *target,
                    CrReduction   reduction,
                    double        param,
                    CrTensor    **grad_inputs,
                    GError      **error)
{
  CrOpId op = loss == CR_OP_MSE_LOSS ? CR_OP_MSE_LOSS_BACKWARD
              : loss == CR_OP_SMOOTH_L1_LOSS ? CR_OP_SMOOTH_L1_LOSS_BACKWARD
              : CR_OP_HUBER_LOSS_BACKWARD;

  /* The target's is the same op with self and target swapped, as PyTorch's
   * (local(−d) = −local(d)). */
  if (cr_ops_needs_grad (node, 0)
      && (grad_inputs[0] = loss_backward (op, grad, self, target, reduction, param, error)) == NULL)
    return FALSE;
  if (cr_ops_needs_grad (node, 1)
      && (grad_inputs[1] = loss_backward (op, grad, target, self, reduction, param, error)) == NULL)
    return FALSE;
  return TRUE;
}
