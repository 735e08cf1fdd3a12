/* cr-ops-activation-backward.c — the backward of activations whose
 * derivative is piecewise constant in x, as ops of their own: a
 * create_graph backward through leaky_relu records PyTorch's
 * LeakyReluBackwardBackward0 (grad, self), as tanh's records
 * TanhBackwardBackward0, and the gradient it gives stays differentiable in
 * self even where that is zero (a further grad gives zeros, not "does not
 * require grad").
 *
 * Each is where(mask(self), IN, OUT), IN and OUT the incoming gradient, a
 * multiple of it, or zeros, exactly as the rows of core/cr-unary-ops.def
 * wrote them:
 *   leaky_relu  self > 0                    grad   grad·negative_slope
 *   hardtanh    min_val < self < max_val    grad   0
 *   hardshrink,
 *   softshrink  −λ ≤ self ≤ λ               0      grad
 *   threshold   self ≤ threshold            0      grad
 * Its backward is the same op in grad, and zeros in self. */
#include "cr-ops-private.h"

#include "cr-tensor.h"

/* Slots: 1 self; args.scalar[0..1] the parameters (slope, min and max, λ,
 * threshold). */

/* The parts of where(mask, IN, OUT). */
typedef enum { PART_GRAD, PART_SCALED, PART_ZEROS } Part;

static void
gate_parts (CrOpId  op,
            Part   *in,
            Part   *out)
{
  switch (op)
    {
    case CR_OP_LEAKY_RELU_BACKWARD:
      *in = PART_GRAD, *out = PART_SCALED;
      break;
    case CR_OP_HARDTANH_BACKWARD:
      *in = PART_GRAD, *out = PART_ZEROS;
      break;
    default:   /* shrinks, threshold */
      *in = PART_ZEROS, *out = PART_GRAD;
      break;
    }
}

/* mask(self) with the op's parameters p (a bool tensor, new ref). */
static CrTensor *
gate_mask (CrOpId          op,
           const CrTensor *self,
           const double   *p,
           GError        **error)
{
  g_autoptr(CrTensor) lo = NULL;
  g_autoptr(CrTensor) hi = NULL;

  switch (op)
    {
    case CR_OP_LEAKY_RELU_BACKWARD:
      return cr_ops_k_num (CR_BINARY_GT, self, 0.0, error);
    case CR_OP_THRESHOLD_BACKWARD:
      return cr_ops_k_num (CR_BINARY_LE, self, p[0], error);
    case CR_OP_HARDTANH_BACKWARD:
      lo = cr_ops_k_num (CR_BINARY_GT, self, p[0], error);
      hi = lo != NULL ? cr_ops_k_num (CR_BINARY_LT, self, p[1], error) : NULL;
      break;
    default:   /* |self| ≤ λ */
      lo = cr_ops_k_num (CR_BINARY_GE, self, -p[0], error);
      hi = lo != NULL ? cr_ops_k_num (CR_BINARY_LE, self, p[0], error) : NULL;
      break;
    }
  return hi != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND, lo, hi, error) : NULL;
}

static CrTensor *
gate_part (Part            part,
           const CrTensor *grad,
           double          k,
           GError        **error)
{
  switch (part)
    {
    case PART_GRAD:
      return cr_tensor_ref ((CrTensor *) grad);
    case PART_SCALED:
      return cr_ops_k_num (CR_BINARY_MUL, grad, k, error);
    default:
      return cr_tensor_new_zeros (grad->shape, grad->ndim, grad->dtype, grad->device, error);
    }
}

/* where(mask(self), IN, OUT) with the kernels alone. */
static CrTensor *
gate (CrOpId          op,
      const CrTensor *grad,
      const CrTensor *self,
      const double   *p,
      GError        **error)
{
  Part in_part, out_part;
  gate_parts (op, &in_part, &out_part);
  g_autoptr(CrTensor) mask = gate_mask (op, self, p, error);
  g_autoptr(CrTensor) in = mask != NULL ? gate_part (in_part, grad, p[0], error) : NULL;
  g_autoptr(CrTensor) out = in != NULL ? gate_part (out_part, grad, p[0], error) : NULL;

  return out != NULL ? cr_kernel_where (mask, in, out, error) : NULL;
}

/* The op over (grad, self), recorded (with its parameters) when grad mode
 * is on and one of them requires grad. */
static CrTensor *
gated_backward (CrOpId     op,
                CrTensor  *grad,
                CrTensor  *self,
                double     p0,
                double     p1,
                GError   **error)
{
  CrTensor *inputs[2] = { grad, self };
  const double p[2] = { p0, p1 };
  CrTensor *result = gate (op, grad, self, p, error);
  CrNode *node;

  if (result != NULL && (node = cr_ops_record (op, inputs, 2, result)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      cr_node_save (node, 1, self, FALSE);
      args->scalar[0] = p0;
      args->scalar[1] = p1;
      args->has_scalar[0] = args->has_scalar[1] = TRUE;
      /* F.threshold's node shares relu's row (cr-ops-elementwise.c): this
       * tells it to use the gate. */
      args->ints[0] = op == CR_OP_THRESHOLD_BACKWARD;
    }
  return result;
}

gboolean
cr_ops_gated_backward_backward (CrNode          *node,
                                CrTensor *const *grads,
                                CrTensor       **grad_inputs,
                                GError         **error)
{
  const double *p = node->args->scalar;

  if (cr_ops_needs_grad (node, 0))
    {
      SAVED (self, 1);
      SET_GRAD (0, gated_backward (node->op->id, grads[0], self, p[0], p[1], error));
    }
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_tensor_new_zeros (grads[0]->shape, grads[0]->ndim, grads[0]->dtype,
                                      grads[0]->device, error));
  return TRUE;
}

CrTensor *
cr_ops_gated_backward_local_grad (CrNode  *node,
                                  guint    input,
                                  GError **error)
{
  if (input == 0)
    {
      SAVED_OR_NULL (self, 1);
      g_autoptr(CrTensor) ones = cr_ops_full_output (node, 1.0, error);

      return cr_ops_take_to_output (node, ones != NULL ? gate (node->op->id, ones, self,
                                                               node->args->scalar, error)
                                                       : NULL, error);
    }
  return cr_ops_full_output (node, 0.0, error);
}

const CrOpInfo cr_op_row_LEAKY_RELU_BACKWARD = {
  CR_OP_LEAKY_RELU_BACKWARD, "leaky_relu_backward", "LeakyReluBackwardBackward0", 2, "lReLU′",
  "g·(1 if x > 0, else slope):  ∂/∂g = 1 if x > 0, else slope,  ∂/∂x = 0",
  cr_ops_gated_backward_backward, cr_ops_gated_backward_local_grad
};

const CrOpInfo cr_op_row_HARDTANH_BACKWARD = {
  CR_OP_HARDTANH_BACKWARD, "hardtanh_backward", "HardtanhBackwardBackward0", 2, "htanh′",
  "g·[min < x < max]:  ∂/∂g = [min < x < max],  ∂/∂x = 0",
  cr_ops_gated_backward_backward, cr_ops_gated_backward_local_grad
};

const CrOpInfo cr_op_row_HARDSHRINK_BACKWARD = {
  CR_OP_HARDSHRINK_BACKWARD, "hardshrink_backward", "HardshrinkBackwardBackward0", 2, "hshrink′",
  "g·[|x| > λ]:  ∂/∂g = [|x| > λ],  ∂/∂x = 0",
  cr_ops_gated_backward_backward, cr_ops_gated_backward_local_grad
};

const CrOpInfo cr_op_row_SOFTSHRINK_BACKWARD = {
  CR_OP_SOFTSHRINK_BACKWARD, "softshrink_backward", "SoftshrinkBackwardBackward0", 2, "sshrink′",
  "g·[|x| > λ]:  ∂/∂g = [|x| > λ],  ∂/∂x = 0",
  cr_ops_gated_backward_backward, cr_ops_gated_backward_local_grad
};

CrTensor *
cr_leaky_relu_backward (CrTensor  *grad,
                        CrTensor  *self,
                        double     negative_slope,
                        GError   **error)
{
  return gated_backward (CR_OP_LEAKY_RELU_BACKWARD, grad, self, negative_slope, 0.0, error);
}

CrTensor *
cr_hardtanh_backward (CrTensor  *grad,
                      CrTensor  *self,
                      double     min_val,
                      double     max_val,
                      GError   **error)
{
  return gated_backward (CR_OP_HARDTANH_BACKWARD, grad, self, min_val, max_val, error);
}

CrTensor *
cr_shrink_backward (CrTensor  *grad,
                    CrTensor  *self,
                    double     lambd,
                    gboolean   soft,
                    GError   **error)
{
  return gated_backward (soft ? CR_OP_SOFTSHRINK_BACKWARD : CR_OP_HARDSHRINK_BACKWARD, grad, self,
                         lambd, 0.0, error);
}

/* F.threshold's: ThresholdBackwardBackward0, as relu's (whose threshold
 * is 0 and whose mask is the fused kernel's, cr_threshold_backward). */
CrTensor *
cr_threshold_backward_at (CrTensor  *grad,
                          CrTensor  *self,
                          double     threshold,
                          GError   **error)
{
  return gated_backward (CR_OP_THRESHOLD_BACKWARD, grad, self, threshold, 0.0, error);
}

/* ---- elu, selu, celu ------------------------------------------------------
 *
 * PyTorch's elu_backward (grad, alpha, scale, input_scale, is_result,
 * self_or_result): grad·scale where x > 0, else grad·input_scale·alpha·
 * scale·e^(input_scale·x) (from the input) or grad·input_scale·(y + alpha·
 * scale) (from the output of elu_). EluBackwardBackward0; selu and celu
 * are elu with their constants. Slots: 1 self_or_result; args.scalar
 * alpha, scale, input_scale; args.ints[0] is_result. */

static CrTensor *
elu_gate (const CrTensor *grad,
          const CrTensor *saved,
          const double   *p,
          gboolean        is_result,
          GError        **error)
{
  double alpha = p[0], scale = p[1], input_scale = p[2];
  g_autoptr(CrTensor) mask = cr_ops_k_num (CR_BINARY_LE, saved, 0.0, error);
  g_autoptr(CrTensor) factor = NULL;   /* e^(i·x), or y + α·s */
  g_autoptr(CrTensor) gf = NULL;
  g_autoptr(CrTensor) in = NULL;
  g_autoptr(CrTensor) out = NULL;

  if (mask == NULL)
    return NULL;
  if (is_result)
    factor = cr_ops_k_num (CR_BINARY_ADD, saved, alpha * scale, error);
  else
    {
      g_autoptr(CrTensor) ix = cr_ops_k_num (CR_BINARY_MUL, saved, input_scale, error);
      factor = ix != NULL ? cr_kernel_unary (CR_UNARY_EXP, ix, error) : NULL;
    }
  gf = factor != NULL ? cr_kernel_binary (CR_BINARY_MUL, grad, factor, error) : NULL;
  in = gf != NULL ? cr_ops_k_num (CR_BINARY_MUL, gf, is_result ? input_scale
                                                               : input_scale * alpha * scale,
                                  error)
                  : NULL;
  out = in != NULL ? cr_ops_k_num (CR_BINARY_MUL, grad, scale, error) : NULL;
  return out != NULL ? cr_kernel_where (mask, in, out, error) : NULL;
}

CrTensor *
cr_elu_backward (CrTensor  *grad,
                 CrTensor  *self_or_result,
                 double     alpha,
                 double     scale,
                 double     input_scale,
                 gboolean   is_result,
                 GError   **error)
{
  CrTensor *inputs[2] = { grad, self_or_result };
  const double p[3] = { alpha, scale, input_scale };
  CrTensor *result = elu_gate (grad, self_or_result, p, is_result, error);
  CrNode *node;

  if (result != NULL && (node = cr_ops_record (CR_OP_ELU_BACKWARD, inputs, 2, result)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      cr_node_save (node, 1, self_or_result, FALSE);
      cr_node_save (node, 0, grad, FALSE);
      for (int i = 0; i < 3; i++)
        {
          args->scalar[i] = p[i];
          args->has_scalar[i] = TRUE;
        }
      args->ints[0] = is_result;
    }
  return result;
}

/* ∂/∂grad: the op itself; ∂/∂self_or_result, PyTorch's elu_double_backward:
 * gg·grad·input_scale·[y < 0] from the output, elu_backward (gg·grad·
 * input_scale, x)·[x < 0] from the input. */
static gboolean
elu_backward_backward (CrNode          *node,
                       CrTensor *const *grads,
                       CrTensor       **grad_inputs,
                       GError         **error)
{
  const double *p = node->args->scalar;
  gboolean is_result = node->args->ints[0] != 0;
  CrTensor *gg = grads[0];
  SAVED (saved, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_elu_backward (gg, saved, p[0], p[1], p[2], is_result, error));
  if (cr_ops_needs_grad (node, 1))
    {
      SAVED (go, 0);
      g_autoptr(CrTensor) gg_go = cr_mul (gg, go, error);
      g_autoptr(CrTensor) scaled = gg_go != NULL ? cr_ops_mul_number (gg_go, p[2], error) : NULL;
      g_autoptr(CrTensor) negative = scaled != NULL ? cr_ops_k_num (CR_BINARY_LT, saved, 0.0, error)
                                                    : NULL;
      g_autoptr(CrTensor) mask = negative != NULL ? cr_to_dtype (negative, gg->dtype, error) : NULL;
      g_autoptr(CrTensor) d = NULL;

      if (mask == NULL)
        return FALSE;
      d = is_result ? g_steal_pointer (&scaled)
                    : cr_elu_backward (scaled, saved, p[0], p[1], p[2], FALSE, error);
      SET_GRAD (1, d != NULL ? cr_mul (d, mask, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
elu_backward_local_grad (CrNode  *node,
                         guint    input,
                         GError **error)
{
  if (input == 0)
    {
      SAVED_OR_NULL (saved, 1);
      g_autoptr(CrTensor) ones = cr_ops_full_output (node, 1.0, error);

      return cr_ops_take_to_output (node, ones != NULL ? elu_gate (ones, saved, node->args->scalar,
                                                                   node->args->ints[0] != 0, error)
                                                       : NULL, error);
    }
  return NULL;   /* not a constant of x: the step view shows ∂/∂g only */
}

const CrOpInfo cr_op_row_ELU_BACKWARD = {
  CR_OP_ELU_BACKWARD, "elu_backward", "EluBackwardBackward0", 2, "elu′",
  "g·(s if x > 0, else α·s·i·e^(i·x)):  ∂/∂g = s if x > 0, else α·s·i·e^(i·x)",
  elu_backward_backward, elu_backward_local_grad
};

/* ---- softplus ---------------------------------------------------------------
 *
 * PyTorch's softplus_backward (grad, self, beta, threshold): grad where
 * β·x > threshold, else grad·σ(β·x). SoftplusBackwardBackward0. Slots: 0
 * grad, 1 self; args.scalar beta, threshold. */

static CrTensor *
softplus_gate (const CrTensor *grad,
               const CrTensor *self,
               double          beta,
               double          threshold,
               GError        **error)
{
  g_autoptr(CrTensor) bx = cr_ops_k_num (CR_BINARY_MUL, self, beta, error);
  g_autoptr(CrTensor) linear = bx != NULL ? cr_ops_k_num (CR_BINARY_GT, bx, threshold, error) : NULL;
  g_autoptr(CrTensor) s = linear != NULL ? cr_kernel_unary (CR_UNARY_SIGMOID, bx, error) : NULL;
  g_autoptr(CrTensor) gs = s != NULL ? cr_kernel_binary (CR_BINARY_MUL, grad, s, error) : NULL;

  return gs != NULL ? cr_kernel_where (linear, grad, gs, error) : NULL;
}

CrTensor *
cr_softplus_backward (CrTensor  *grad,
                      CrTensor  *self,
                      double     beta,
                      double     threshold,
                      GError   **error)
{
  CrTensor *inputs[2] = { grad, self };
  CrTensor *result = softplus_gate (grad, self, beta, threshold, error);
  CrNode *node;

  if (result != NULL && (node = cr_ops_record (CR_OP_SOFTPLUS_BACKWARD, inputs, 2, result)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      cr_node_save (node, 0, grad, FALSE);
      cr_node_save (node, 1, self, FALSE);
      args->scalar[0] = beta;
      args->scalar[1] = threshold;
      args->has_scalar[0] = args->has_scalar[1] = TRUE;
    }
  return result;
}

/* ∂/∂grad: the op itself; ∂/∂self, PyTorch's softplus_double_backward:
 * sigmoid_backward (gg·grad, σ(β·x))·[β·x < threshold]·β. */
static gboolean
softplus_backward_backward (CrNode          *node,
                            CrTensor *const *grads,
                            CrTensor       **grad_inputs,
                            GError         **error)
{
  double beta = node->args->scalar[0], threshold = node->args->scalar[1];
  CrTensor *gg = grads[0];
  SAVED (self, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, cr_softplus_backward (gg, self, beta, threshold, error));
  if (cr_ops_needs_grad (node, 1))
    {
      SAVED (go, 0);
      g_autoptr(CrTensor) gg_go = cr_mul (gg, go, error);
      g_autoptr(CrTensor) bx = gg_go != NULL ? cr_ops_mul_number (self, beta, error) : NULL;
      g_autoptr(CrTensor) s = bx != NULL ? cr_sigmoid (bx, error) : NULL;
      g_autoptr(CrTensor) sb = s != NULL ? cr_sigmoid_backward (gg_go, s, error) : NULL;
      g_autoptr(CrTensor) below = sb != NULL ? cr_ops_k_num (CR_BINARY_LT, bx, threshold, error)
                                             : NULL;
      g_autoptr(CrTensor) mask = below != NULL ? cr_to_dtype (below, gg->dtype, error) : NULL;
      g_autoptr(CrTensor) masked = mask != NULL ? cr_mul (sb, mask, error) : NULL;

      SET_GRAD (1, masked != NULL ? cr_ops_mul_number (masked, beta, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
softplus_backward_local_grad (CrNode  *node,
                              guint    input,
                              GError **error)
{
  if (input == 0)
    {
      SAVED_OR_NULL (self, 1);
      g_autoptr(CrTensor) ones = cr_ops_full_output (node, 1.0, error);

      return cr_ops_take_to_output (node, ones != NULL ? softplus_gate (ones, self,
                                                                        node->args->scalar[0],
                                                                        node->args->scalar[1], error)
                                                       : NULL, error);
    }
  return NULL;   /* not a constant of x: the step view shows ∂/∂g only */
}

const CrOpInfo cr_op_row_SOFTPLUS_BACKWARD = {
  CR_OP_SOFTPLUS_BACKWARD, "softplus_backward", "SoftplusBackwardBackward0", 2, "softplus′",
  "g·σ(βx), g where βx > threshold:  ∂/∂g = σ(βx), 1 where βx > threshold",
  softplus_backward_backward, softplus_backward_local_grad
};
