/* cr-ops-activation.c — the activations of torch.nn.functional that have
 * their own PyTorch nodes and a parameter: leaky_relu, elu, softplus, gelu
 * (silu is a row of core/cr-unary-ops.def).
 *
 * A forward is computed with grad mode off from existing ops (a fresh
 * tensor) and recorded as one node with the input saved, as PyTorch saves
 * self for these. The backward formulas are PyTorch 1.13's
 * leaky_relu_backward, elu_backward, softplus_backward and gelu_backward,
 * written with differentiable ops so that a create_graph backward records a
 * graph (gelu's normal CDF term is the exception: it
 * enters the second derivative as a constant). */
#include "cr-ops-private.h"
#include "cr-cuda.h"

#include <math.h>

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

/* x > threshold as a bool tensor (no graph). */
static CrTensor *
greater_than (CrTensor  *x,
              double     threshold,
              GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (threshold, FALSE);

  return cr_binary_nograd (CR_BINARY_GT, x, n, error);
}

static gboolean
check_floating (const char     *name,
                const CrTensor *x,
                GError        **error)
{
  if (cr_dtype_is_floating (x->dtype))
    return TRUE;
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "\"%s\" not implemented for '%s'", name, cr_dtype_scalar_name (x->dtype));
  return FALSE;
}

/* Records op over x for out, with x in slot 0 and the scalars in args. */
static void
record (CrOpId     op,
        CrTensor  *x,
        CrTensor  *out,
        double     a,
        double     b)
{
  CrNode *node = cr_ops_record (op, &x, 1, out);

  if (node == NULL)
    return;
  cr_node_args (node)->scalar[0] = a;
  cr_node_args (node)->scalar[1] = b;
  cr_node_save (node, 0, x, FALSE);
}

/* ---- leaky_relu -------------------------------------------------------- */

static CrTensor *
leaky (CrTensor  *x,
       CrTensor  *values,
       double     slope,
       GError   **error)
{
  g_autoptr(CrTensor) pos = greater_than (x, 0.0, error);
  g_autoptr(CrTensor) scaled = pos != NULL ? times_number (values, slope, error) : NULL;

  return scaled != NULL ? cr_where (pos, values, scaled, error) : NULL;
}

static gboolean
leaky_relu_backward (CrNode          *node,
                     CrTensor *const *grads,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  SAVED (x, 0);
  SET_GRAD (0, leaky (x, grads[0], node->args->scalar[0], error));
  return TRUE;
}

/* args.scalar[0]: negative_slope; the input in slot 0. */
const CrOpInfo cr_op_row_LEAKY_RELU = {
  CR_OP_LEAKY_RELU, "leaky_relu", "LeakyReluBackward0", 1, "lrelu",
  "∂leaky_relu(x)/∂x = 1 (x > 0), slope (x ≤ 0)",
  leaky_relu_backward, NULL
};

CrTensor *
cr_leaky_relu (CrTensor  *x,
               double     negative_slope,
               GError   **error)
{
  gboolean was_enabled;
  CrTensor *out;

  if (!check_floating ("leaky_relu_cpu", x, error))
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  out = leaky (x, x, negative_slope, error);
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL)
    record (CR_OP_LEAKY_RELU, x, out, negative_slope, 0.0);
  return out;
}

/* ---- elu --------------------------------------------------------------- */

/* where(x > 0, pos, alpha * neg) */
static CrTensor *
elu_select (CrTensor  *x,
            CrTensor  *pos,
            CrTensor  *neg,
            double     alpha,
            GError   **error)
{
  g_autoptr(CrTensor) mask = greater_than (x, 0.0, error);
  g_autoptr(CrTensor) scaled = mask != NULL ? times_number (neg, alpha, error) : NULL;

  return scaled != NULL ? cr_where (mask, pos, scaled, error) : NULL;
}

static gboolean
elu_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SAVED (x, 0);
  g_autoptr(CrTensor) e = cr_exp (x, error);
  g_autoptr(CrTensor) ge = e != NULL ? cr_mul (grads[0], e, error) : NULL;

  if (ge == NULL)
    return FALSE;
  SET_GRAD (0, elu_select (x, grads[0], ge, node->args->scalar[0], error));
  return TRUE;
}

/* args.scalar[0]: alpha; the input in slot 0. */
const CrOpInfo cr_op_row_ELU = {
  CR_OP_ELU, "elu", "EluBackward0", 1, "elu",
  "∂elu(x)/∂x = 1 (x > 0), α·eˣ (x ≤ 0)",
  elu_backward, NULL
};

CrTensor *
cr_elu (CrTensor  *x,
        double     alpha,
        GError   **error)
{
  gboolean was_enabled;
  CrTensor *out = NULL;

  if (!check_floating ("elu_cpu", x, error))
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  {
    g_autoptr(CrTensor) em1 = cr_unary (CR_OP_EXPM1, x, error);

    if (em1 != NULL)
      out = elu_select (x, x, em1, alpha, error);
  }
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL)
    record (CR_OP_ELU, x, out, alpha, 0.0);
  return out;
}

/* ---- softplus ---------------------------------------------------------- */

static gboolean
softplus_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  double beta = node->args->scalar[0], threshold = node->args->scalar[1];
  SAVED (x, 0);
  g_autoptr(CrTensor) bx = times_number (x, beta, error);
  g_autoptr(CrTensor) s = bx != NULL ? cr_sigmoid (bx, error) : NULL;
  g_autoptr(CrTensor) gs = s != NULL ? cr_mul (grads[0], s, error) : NULL;
  g_autoptr(CrTensor) linear = gs != NULL ? greater_than (bx, threshold, error) : NULL;

  if (linear == NULL)
    return FALSE;
  SET_GRAD (0, cr_where (linear, grads[0], gs, error));
  return TRUE;
}

/* args.scalar[0]: beta, scalar[1]: threshold; the input in slot 0. */
const CrOpInfo cr_op_row_SOFTPLUS = {
  CR_OP_SOFTPLUS, "softplus", "SoftplusBackward0", 1, "softplus",
  "∂softplus(x)/∂x = σ(βx)",
  softplus_backward, NULL
};

CrTensor *
cr_softplus (CrTensor  *x,
             double     beta,
             double     threshold,
             GError   **error)
{
  gboolean was_enabled;
  CrTensor *out = NULL;

  if (!check_floating ("softplus_cpu", x, error))
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  {
    g_autoptr(CrTensor) bx = times_number (x, beta, error);
    g_autoptr(CrTensor) e = bx != NULL ? cr_exp (bx, error) : NULL;
    g_autoptr(CrTensor) l = e != NULL ? cr_unary (CR_OP_LOG1P, e, error) : NULL;
    g_autoptr(CrTensor) soft = l != NULL ? times_number (l, 1.0 / beta, error) : NULL;
    g_autoptr(CrTensor) linear = soft != NULL ? greater_than (bx, threshold, error) : NULL;

    if (linear != NULL)
      out = cr_where (linear, x, soft, error);
  }
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL)
    record (CR_OP_SOFTPLUS, x, out, beta, threshold);
  return out;
}

/* ---- gelu -------------------------------------------------------------- */

/* The standard normal CDF of x, elementwise (no graph). */
static CrTensor *
normal_cdf (CrTensor  *x,
            GError   **error)
{
  CrTensor *out;
  gint64 n = x->numel;

  if (x->device != CR_DEVICE_CPU)
    {
      /* No erf kernel in the device ABI yet: a round trip through the host
       * (two synchronizing copies). A device erf would remove it. */
      g_autoptr(CrTensor) host = cr_tensor_to_device (x, CR_DEVICE_CPU, error);
      g_autoptr(CrTensor) cdf = host != NULL ? normal_cdf (host, error) : NULL;

      return cdf != NULL ? cr_tensor_to_device (cdf, x->device, error) : NULL;
    }
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, x->device, error);
  if (out == NULL)
    return NULL;
  if (!cr_kernel_copy_into (out, x, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  if (out->dtype == CR_DTYPE_FLOAT32)
    {
      float *p = cr_tensor_data (out);
      for (gint64 i = 0; i < n; i++)
        p[i] = 0.5f * (1.0f + erff (p[i] * (float) M_SQRT1_2));
    }
  else
    {
      double *p = cr_tensor_data (out);
      for (gint64 i = 0; i < n; i++)
        p[i] = 0.5 * (1.0 + erf (p[i] * M_SQRT1_2));
    }
  return out;
}

/* grad * (Φ(x) + x φ(x)), φ(x) = exp(-x²/2) / √(2π). */
static gboolean
gelu_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  SAVED (x, 0);
  g_autoptr(CrTensor) cdf = normal_cdf (x, error);
  g_autoptr(CrTensor) sq = cdf != NULL ? cr_mul (x, x, error) : NULL;
  g_autoptr(CrTensor) h = sq != NULL ? times_number (sq, -0.5, error) : NULL;
  g_autoptr(CrTensor) e = h != NULL ? cr_exp (h, error) : NULL;
  g_autoptr(CrTensor) pdf = e != NULL ? times_number (e, 0.5 * M_2_SQRTPI * M_SQRT1_2, error)
                                      : NULL;
  g_autoptr(CrTensor) xpdf = pdf != NULL ? cr_mul (x, pdf, error) : NULL;
  g_autoptr(CrTensor) d = xpdf != NULL ? cr_add (cdf, xpdf, error) : NULL;

  if (d == NULL)
    return FALSE;
  SET_GRAD (0, cr_mul (grads[0], d, error));
  return TRUE;
}

/* The input in slot 0 (approximate='none'). */
const CrOpInfo cr_op_row_GELU = {
  CR_OP_GELU, "gelu", "GeluBackward0", 1, "gelu",
  "∂gelu(x)/∂x = Φ(x) + x·φ(x)",
  gelu_backward, NULL
};

CrTensor *
cr_gelu (CrTensor  *x,
         GError   **error)
{
  g_autoptr(CrTensor) cdf = NULL;
  CrTensor *out;

  if (!check_floating ("GeluKernelImpl", x, error))
    return NULL;
  cdf = normal_cdf (x, error);
  if (cdf == NULL)
    return NULL;
  out = cr_kernel_binary (CR_BINARY_MUL, x, cdf, error);
  if (out != NULL)
    record (CR_OP_GELU, x, out, 0.0, 0.0);
  return out;
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

/* ∂/∂input = where(|d| < β, d / β, sign(d)) · grad (/ N for mean); the
 * target gets its negation. Saved: input (0), target (1). */
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
  g_autoptr(CrTensor) d = cr_sub (input, target, error);
  g_autoptr(CrTensor) ad = d != NULL ? cr_kernel_unary (CR_UNARY_ABS, d, error) : NULL;
  g_autoptr(CrTensor) beta_t = cr_ops_wrap_number (beta, FALSE);
  g_autoptr(CrTensor) small = ad != NULL ? cr_binary_nograd (CR_BINARY_LT, ad, beta_t, error)
                                         : NULL;
  g_autoptr(CrTensor) quad = small != NULL && beta > 0 ? times_number (d, 1.0 / beta, error)
                                                       : NULL;
  g_autoptr(CrTensor) sgn = small != NULL ? cr_unary (CR_OP_SIGN, d, error) : NULL;
  g_autoptr(CrTensor) local = NULL;
  g_autoptr(CrTensor) g = NULL;

  if (sgn == NULL)
    return FALSE;
  local = beta > 0 ? cr_where (small, quad, sgn, error) : cr_tensor_ref (sgn);
  if (local == NULL || (g = cr_mul (local, grads[0], error)) == NULL)
    return FALSE;
  if (reduction == CR_REDUCTION_MEAN)
    {
      CrTensor *scaled = times_number (g, 1.0 / (double) MAX (d->numel, 1), error);
      if (scaled == NULL)
        return FALSE;
      cr_tensor_unref (g);
      g = scaled;
    }
  if (cr_ops_needs_grad (node, 0))
    grad_inputs[0] = cr_tensor_ref (g);
  if (cr_ops_needs_grad (node, 1) && (grad_inputs[1] = cr_neg (g, error)) == NULL)
    return FALSE;
  return TRUE;
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
