/* cr-ops-curved-backward.c — the backward of activations whose derivative
 * is a curve in x, as ops of their own: a create_graph backward through gelu
 * records PyTorch's GeluBackwardBackward0 (grad_output, self), logsigmoid
 * LogSigmoidBackwardBackward0, hardswish HardswishBackwardBackward0, as
 * softplus's records SoftplusBackwardBackward0 (cr-ops-activation-backward.c).
 *
 * Each is g·f′(x), computed with grad mode off and recorded as one node:
 *   gelu        f′ = Φ(x) + x·φ(x)   (tanh: ½(1 + t) + ½x(1 − t²)u′,
 *                                      u = √(2/π)(x + 0.044715x³), t = tanh u)
 *   logsigmoid  f′ = σ(−x)
 *   hardswish   f′ = 0 (x < −3), x/3 + ½ (x ≤ 3), 1
 * Its backward is the same op in g (it is linear in g), and gg·g·f″(x) in x,
 * written with differentiable ops (PyTorch's *_double_backward):
 *   gelu        f″ = φ(x)(2 − x²)   (tanh: (1 − t²)(u′ − x·t·u′² + ½x·u″))
 *   logsigmoid  f″ = (σ(x) − 1)·σ(x)
 *   hardswish   f″ = 1/3 where −3 < x < 3, else 0
 * Slots: 0 grad_output, 1 self; logsigmoid's 2 buffer (see
 * cr_ops_log_sigmoid_buffer); args.scalar[0] gelu's approximate (0 none,
 * 1 tanh). */
#include "cr-ops-private.h"

#include "cr-grad-mode.h"
#include "cr-tensor.h"

#include <math.h>

#define GELU_TANH_BETA  0.7978845608028654   /* √(2/π) */
#define GELU_TANH_KAPPA 0.044715
#define GELU_PDF_BETA   (M_2_SQRTPI * M_SQRT1_2 * 0.5)   /* 1/√(2π) */

/* g·f′(x) with the differentiable ops (the caller decides whether they
 * record). A new ref, NULL on error. */
static CrTensor *
first_derivative (CrOpId     op,
                  CrTensor  *g,
                  CrTensor  *x,
                  double     approximate,
                  GError   **error)
{
  g_autoptr(CrTensor) d = NULL;

  switch (op)
    {
    case CR_OP_GELU_BACKWARD:
      if (approximate == 0.0)
        {
          /* ½(1 + erf(x/√2)) + x·φ(x) */
          g_autoptr(CrTensor) s = cr_ops_mul_number (x, M_SQRT1_2, error);
          g_autoptr(CrTensor) e = s != NULL ? cr_unary (CR_OP_ERF, s, error) : NULL;
          g_autoptr(CrTensor) e1 = e != NULL ? cr_ops_add_number (e, 1.0, error) : NULL;
          g_autoptr(CrTensor) cdf = e1 != NULL ? cr_ops_mul_number (e1, 0.5, error) : NULL;
          g_autoptr(CrTensor) xx = cdf != NULL ? cr_mul (x, x, error) : NULL;
          g_autoptr(CrTensor) h = xx != NULL ? cr_ops_mul_number (xx, -0.5, error) : NULL;
          g_autoptr(CrTensor) ex = h != NULL ? cr_unary (CR_OP_EXP, h, error) : NULL;
          g_autoptr(CrTensor) pdf = ex != NULL ? cr_ops_mul_number (ex, GELU_PDF_BETA, error)
                                               : NULL;
          g_autoptr(CrTensor) xpdf = pdf != NULL ? cr_mul (x, pdf, error) : NULL;

          d = xpdf != NULL ? cr_add (cdf, xpdf, error) : NULL;
        }
      else
        {
          /* ½(1 + t) + ½x·(1 − t²)·u′ */
          g_autoptr(CrTensor) xx = cr_mul (x, x, error);
          g_autoptr(CrTensor) x3 = xx != NULL ? cr_mul (xx, x, error) : NULL;
          g_autoptr(CrTensor) k3 = x3 != NULL ? cr_ops_mul_number (x3, GELU_TANH_KAPPA, error)
                                              : NULL;
          g_autoptr(CrTensor) s = k3 != NULL ? cr_add (x, k3, error) : NULL;
          g_autoptr(CrTensor) u = s != NULL ? cr_ops_mul_number (s, GELU_TANH_BETA, error) : NULL;
          g_autoptr(CrTensor) t = u != NULL ? cr_unary (CR_OP_TANH, u, error) : NULL;
          g_autoptr(CrTensor) t1 = t != NULL ? cr_ops_add_number (t, 1.0, error) : NULL;
          g_autoptr(CrTensor) left = t1 != NULL ? cr_ops_mul_number (t1, 0.5, error) : NULL;
          g_autoptr(CrTensor) tt = left != NULL ? cr_mul (t, t, error) : NULL;
          g_autoptr(CrTensor) sech2 = tt != NULL ? cr_rsub_scalar (tt, 1.0, error) : NULL;
          g_autoptr(CrTensor) k = sech2 != NULL ? cr_ops_mul_number (xx, 3.0 * GELU_TANH_KAPPA,
                                                                     error) : NULL;
          g_autoptr(CrTensor) k1 = k != NULL ? cr_ops_add_number (k, 1.0, error) : NULL;
          g_autoptr(CrTensor) du = k1 != NULL ? cr_ops_mul_number (k1, GELU_TANH_BETA, error)
                                              : NULL;
          g_autoptr(CrTensor) hx = du != NULL ? cr_ops_mul_number (x, 0.5, error) : NULL;
          g_autoptr(CrTensor) a = hx != NULL ? cr_mul (hx, sech2, error) : NULL;
          g_autoptr(CrTensor) right = a != NULL ? cr_mul (a, du, error) : NULL;

          d = right != NULL ? cr_add (left, right, error) : NULL;
        }
      break;
    case CR_OP_LOG_SIGMOID_BACKWARD:
      {
        g_autoptr(CrTensor) nx = cr_neg (x, error);

        d = nx != NULL ? cr_sigmoid (nx, error) : NULL;
      }
      break;
    case CR_OP_HARDSWISH_BACKWARD:
    default:
      {
        /* Zeros below −3 rather than g·0, whose sign would follow g's. */
        g_autoptr(CrTensor) below = cr_ops_k_num (CR_BINARY_LT, x, -3.0, error);
        g_autoptr(CrTensor) inside = below != NULL ? cr_ops_k_num (CR_BINARY_LE, x, 3.0, error)
                                                   : NULL;
        g_autoptr(CrTensor) third = inside != NULL ? cr_ops_mul_number (x, 1.0 / 3.0, error)
                                                   : NULL;
        g_autoptr(CrTensor) slope = third != NULL ? cr_ops_add_number (third, 0.5, error) : NULL;
        g_autoptr(CrTensor) gs = slope != NULL ? cr_mul (g, slope, error) : NULL;
        g_autoptr(CrTensor) upper = gs != NULL ? cr_where (inside, gs, g, error) : NULL;
        g_autoptr(CrTensor) zero = upper != NULL ? cr_tensor_new_zeros (upper->shape, upper->ndim,
                                                                        upper->dtype, upper->device,
                                                                        error) : NULL;

        return zero != NULL ? cr_where (below, zero, upper, error) : NULL;
      }
      break;
    }
  return d != NULL ? cr_mul (g, d, error) : NULL;
}

/* gg·g·f″(x), recorded when grad mode is on. */
static CrTensor *
second_derivative (CrOpId     op,
                   CrTensor  *gg_g,
                   CrTensor  *x,
                   double     approximate,
                   GError   **error)
{
  g_autoptr(CrTensor) d = NULL;

  switch (op)
    {
    case CR_OP_GELU_BACKWARD:
      if (approximate == 0.0)
        {
          /* φ(x)(2 − x²) */
          g_autoptr(CrTensor) xx = cr_mul (x, x, error);
          g_autoptr(CrTensor) h = xx != NULL ? cr_ops_mul_number (xx, -0.5, error) : NULL;
          g_autoptr(CrTensor) ex = h != NULL ? cr_unary (CR_OP_EXP, h, error) : NULL;
          g_autoptr(CrTensor) pdf = ex != NULL ? cr_ops_mul_number (ex, GELU_PDF_BETA, error)
                                               : NULL;
          g_autoptr(CrTensor) two = pdf != NULL ? cr_rsub_scalar (xx, 2.0, error) : NULL;

          d = two != NULL ? cr_mul (pdf, two, error) : NULL;
        }
      else
        {
          /* (1 − t²)(u′ − x·t·u′² + ½x·u″), u″ = 6·κ·β·x */
          g_autoptr(CrTensor) xx = cr_mul (x, x, error);
          g_autoptr(CrTensor) x3 = xx != NULL ? cr_mul (xx, x, error) : NULL;
          g_autoptr(CrTensor) k3 = x3 != NULL ? cr_ops_mul_number (x3, GELU_TANH_KAPPA, error)
                                              : NULL;
          g_autoptr(CrTensor) s = k3 != NULL ? cr_add (x, k3, error) : NULL;
          g_autoptr(CrTensor) u = s != NULL ? cr_ops_mul_number (s, GELU_TANH_BETA, error) : NULL;
          g_autoptr(CrTensor) t = u != NULL ? cr_unary (CR_OP_TANH, u, error) : NULL;
          g_autoptr(CrTensor) tt = t != NULL ? cr_mul (t, t, error) : NULL;
          g_autoptr(CrTensor) sech2 = tt != NULL ? cr_rsub_scalar (tt, 1.0, error) : NULL;
          g_autoptr(CrTensor) k = sech2 != NULL ? cr_ops_mul_number (xx, 3.0 * GELU_TANH_KAPPA,
                                                                     error) : NULL;
          g_autoptr(CrTensor) k1 = k != NULL ? cr_ops_add_number (k, 1.0, error) : NULL;
          g_autoptr(CrTensor) du = k1 != NULL ? cr_ops_mul_number (k1, GELU_TANH_BETA, error)
                                              : NULL;
          g_autoptr(CrTensor) du2 = du != NULL ? cr_mul (du, du, error) : NULL;
          g_autoptr(CrTensor) xt = du2 != NULL ? cr_mul (x, t, error) : NULL;
          g_autoptr(CrTensor) mid = xt != NULL ? cr_mul (xt, du2, error) : NULL;
          g_autoptr(CrTensor) xx3 = mid != NULL ? cr_ops_mul_number (xx, 3.0 * GELU_TANH_KAPPA
                                                                         * GELU_TANH_BETA, error)
                                                : NULL;   /* ½x·u″ */
          g_autoptr(CrTensor) a = xx3 != NULL ? cr_sub (du, mid, error) : NULL;
          g_autoptr(CrTensor) b = a != NULL ? cr_add (a, xx3, error) : NULL;

          d = b != NULL ? cr_mul (sech2, b, error) : NULL;
        }
      break;
    case CR_OP_LOG_SIGMOID_BACKWARD:
      {
        g_autoptr(CrTensor) z = cr_sigmoid (x, error);
        g_autoptr(CrTensor) z1 = z != NULL ? cr_ops_add_number (z, -1.0, error) : NULL;

        d = z1 != NULL ? cr_mul (z1, z, error) : NULL;
      }
      break;
    case CR_OP_HARDSWISH_BACKWARD:
    default:
      {
        g_autoptr(CrTensor) above = cr_ops_k_num (CR_BINARY_GT, x, -3.0, error);
        g_autoptr(CrTensor) below = above != NULL ? cr_ops_k_num (CR_BINARY_LT, x, 3.0, error)
                                                  : NULL;
        g_autoptr(CrTensor) inside = below != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND,
                                                                       above, below, error)
                                                   : NULL;
        g_autoptr(CrTensor) third = inside != NULL ? cr_binary_number (CR_OP_DIV, gg_g, 3.0, error)
                                                   : NULL;
        g_autoptr(CrTensor) zero = third != NULL ? cr_tensor_new_zeros (third->shape, third->ndim,
                                                                        third->dtype, third->device,
                                                                        error) : NULL;

        return zero != NULL ? cr_where (inside, third, zero, error) : NULL;
      }
    }
  return d != NULL ? cr_mul (gg_g, d, error) : NULL;
}

CrTensor *
cr_ops_log_sigmoid_buffer (CrTensor  *x,
                           GError   **error)
{
  static const gint64 none = 0;
  g_autoptr(CrTensor) magnitude = NULL;
  g_autoptr(CrTensor) negated = NULL;

  /* PyTorch's CUDA forward keeps an empty buffer (its backward needs none). */
  if (x->device != CR_DEVICE_CPU)
    return cr_tensor_new_empty (&none, 1, x->dtype, x->device, error);
  magnitude = cr_kernel_unary (CR_UNARY_ABS, x, error);
  negated = magnitude != NULL ? cr_kernel_unary (CR_UNARY_NEG, magnitude, error) : NULL;
  return negated != NULL ? cr_kernel_unary (CR_UNARY_EXP, negated, error) : NULL;
}

/* The op over (grad, self): its value with grad mode off, then one node
 * when grad mode is on and either requires grad. */
static CrTensor *
curved_backward (CrOpId     op,
                 CrTensor  *grad,
                 CrTensor  *self,
                 double     approximate,
                 GError   **error)
{
  CrTensor *inputs[2] = { grad, self };
  gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
  CrTensor *result = first_derivative (op, grad, self, approximate, error);
  CrNode *node;

  cr_grad_mode_set_enabled (was_enabled);
  if (result != NULL && (node = cr_ops_record (op, inputs, 2, result)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      cr_node_save (node, 0, grad, FALSE);
      cr_node_save (node, 1, self, FALSE);
      if (op == CR_OP_LOG_SIGMOID_BACKWARD)
        {
          g_autoptr(CrTensor) buffer = cr_ops_log_sigmoid_buffer (self, error);

          if (buffer == NULL)
            g_clear_pointer (&result, cr_tensor_unref);
          cr_node_save (node, 2, buffer, FALSE);
        }
      args->scalar[0] = approximate;
      args->has_scalar[0] = TRUE;
    }
  return result;
}

static gboolean
curved_backward_backward (CrNode          *node,
                          CrTensor *const *grads,
                          CrTensor       **grad_inputs,
                          GError         **error)
{
  double approximate = node->args->scalar[0];
  CrTensor *gg = grads[0];
  SAVED (self, 1);

  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, curved_backward (node->op->id, gg, self, approximate, error));
  if (cr_ops_needs_grad (node, 1))
    {
      SAVED (go, 0);
      g_autoptr(CrTensor) gg_go = cr_mul (gg, go, error);

      SET_GRAD (1, gg_go != NULL ? second_derivative (node->op->id, gg_go, self, approximate,
                                                      error)
                                 : NULL);
    }
  return TRUE;
}

/* ∂/∂g = f′(x) for the step view; ∂/∂x is no constant of g. */
static CrTensor *
curved_backward_local_grad (CrNode  *node,
                            guint    input,
                            GError **error)
{
  if (input == 0)
    {
      SAVED_OR_NULL (self, 1);
      g_autoptr(CrTensor) ones = cr_ops_full_output (node, 1.0, error);
      gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
      CrTensor *d = ones != NULL ? first_derivative (node->op->id, ones, self,
                                                     node->args->scalar[0], error)
                                 : NULL;

      cr_grad_mode_set_enabled (was_enabled);
      return cr_ops_take_to_output (node, d, error);
    }
  return NULL;
}

const CrOpInfo cr_op_row_GELU_BACKWARD = {
  CR_OP_GELU_BACKWARD, "gelu_backward", "GeluBackwardBackward0", 2, "gelu′",
  "g·(Φ(x) + x·φ(x)):  ∂/∂g = Φ(x) + x·φ(x),  ∂/∂x = g·φ(x)(2 − x²)",
  curved_backward_backward, curved_backward_local_grad
};

const CrOpInfo cr_op_row_LOG_SIGMOID_BACKWARD = {
  CR_OP_LOG_SIGMOID_BACKWARD, "log_sigmoid_backward", "LogSigmoidBackwardBackward0", 2,
  "log σ′", "g·σ(−x):  ∂/∂g = σ(−x),  ∂/∂x = g·(σ(x) − 1)·σ(x)",
  curved_backward_backward, curved_backward_local_grad
};

const CrOpInfo cr_op_row_HARDSWISH_BACKWARD = {
  CR_OP_HARDSWISH_BACKWARD, "hardswish_backward", "HardswishBackwardBackward0", 2, "hswish′",
  "g·(0, x/3 + ½, 1):  ∂/∂g = 0 if x < −3, x/3 + ½ if x ≤ 3, else 1,  ∂/∂x = g/3 inside",
  curved_backward_backward, curved_backward_local_grad
};

CrTensor *
cr_gelu_backward (CrTensor  *grad,
                  CrTensor  *self,
                  double     approximate,
                  GError   **error)
{
  return curved_backward (CR_OP_GELU_BACKWARD, grad, self, approximate, error);
}

CrTensor *
cr_log_sigmoid_backward (CrTensor  *grad,
                         CrTensor  *self,
                         GError   **error)
{
  return curved_backward (CR_OP_LOG_SIGMOID_BACKWARD, grad, self, 0.0, error);
}

CrTensor *
cr_hardswish_backward (CrTensor  *grad,
                       CrTensor  *self,
                       GError   **error)
{
  return curved_backward (CR_OP_HARDSWISH_BACKWARD, grad, self, 0.0, error);
}
