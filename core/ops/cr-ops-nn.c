/* cr-ops-nn.c — softmax, log_softmax and the losses of torch.nn.functional.
 *
 * Each loss is one node (MseLossBackward0, NllLossBackward0, ...) as in
 * PyTorch. Backward formulas take a direct kernel path when nothing is being
 * recorded (the training loop's case: cross_entropy on a 64×10 batch must not
 * cost more than a few passes over memory) and are composed of differentiable
 * ops under create_graph, so that second derivatives work.
 */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

#include <math.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

/* "torch.Size([2, 3])" */
static char *
torch_size (const CrTensor *t)
{
  g_autofree char *s = cr_shape_to_string (t->shape, t->ndim);
  return g_strdup_printf ("torch.Size(%s)", s);
}

/* Reduce an elementwise loss (a new ref, taken) per reduction. */
static CrTensor *
reduce_loss (CrTensor     *loss,
             CrReduction   reduction,
             GError      **error)
{
  CrTensor *out;

  switch (reduction)
    {
    case CR_REDUCTION_MEAN:
      out = cr_kernel_mean (loss, NULL, 0, FALSE, error);
      break;
    case CR_REDUCTION_SUM:
      out = cr_kernel_sum (loss, NULL, 0, FALSE, error);
      break;
    case CR_REDUCTION_NONE:
    default:
      return loss;
    }
  cr_tensor_unref (loss);
  return out;
}

/* grad * factor / (N when mean): the common tail of the loss backwards. */
static CrTensor *
scale_grad (CrTensor     *t,
            CrTensor     *grad,
            double        factor,
            CrReduction   reduction,
            gint64        numel,
            GError      **error)
{
  g_autoptr(CrTensor) prod = cr_mul (t, grad, error);
  g_autoptr(CrTensor) k = NULL;

  if (prod == NULL)
    return NULL;
  if (reduction == CR_REDUCTION_MEAN)
    factor /= (double) numel;
  if (factor == 1.0)
    return g_steal_pointer (&prod);
  k = cr_ops_wrap_number (factor, FALSE);
  return cr_mul (prod, k, error);
}

/* ---- softmax, log_softmax ----------------------------------------------- */

/* SOFTMAX, LOG_SOFTMAX: input x; saved[0] the output; args.dims[0] the dim. */
static gboolean
softmax_backward_common (CrNode          *node,
                         CrTensor *const *grad_outputs,
                         CrTensor       **grad_inputs,
                         gboolean         log,
                         GError         **error)
{
  g_autoptr(CrTensor) out = cr_node_get_saved (node, 0, error);

  if (out == NULL)
    return FALSE;
  /* With create_graph, a node of its own (SoftmaxBackwardDataBackward0). */
  grad_inputs[0] = cr_softmax_backward_data (grad_outputs[0], out, node->args->dims[0], log, error);
  return grad_inputs[0] != NULL;
}

static gboolean
softmax_backward (CrNode          *node,
                  CrTensor *const *grad_outputs,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  return softmax_backward_common (node, grad_outputs, grad_inputs, FALSE, error);
}

static gboolean
log_softmax_backward (CrNode          *node,
                      CrTensor *const *grad_outputs,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  return softmax_backward_common (node, grad_outputs, grad_inputs, TRUE, error);
}

const CrOpInfo cr_op_row_SOFTMAX = {
  CR_OP_SOFTMAX, "softmax", "SoftmaxBackward0", 1, "softmax",
  "∂s/∂x: G ↦ s ⊙ (G − Σ(G ⊙ s))", softmax_backward, NULL
};

const CrOpInfo cr_op_row_LOG_SOFTMAX = {
  CR_OP_LOG_SOFTMAX, "log_softmax", "LogSoftmaxBackward0", 1, "log_softmax",
  "∂y/∂x: G ↦ G − exp(y) ⊙ ΣG", log_softmax_backward, NULL
};

static CrTensor *
softmax_common (CrTensor  *x,
                int        dim,
                gboolean   log,
                GError   **error)
{
  g_autoptr(CrTensor) x1 = NULL;
  g_autoptr(CrTensor) r = NULL;
  CrTensor *out;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (!cr_dtype_is_floating (x->dtype))
    {
      gboolean last = x->ndim == 0 || dim == x->ndim - 1;
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"%s\" not implemented for '%s'",
                   !last ? "softmax_kernel_impl"
                   : log ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl",
                   cr_dtype_scalar_name (x->dtype));
      return NULL;
    }

  x1 = cr_ops_as_1d (x);
  r = cr_kernel_softmax (x1, dim, log, error);
  if (r == NULL)
    return NULL;
  out = cr_ops_as_0d (r, x->ndim);

  if (cr_autograd_should_record (&x, 1))
    {
      CrNode *node = cr_node_new (log ? CR_OP_LOG_SOFTMAX : CR_OP_SOFTMAX, &x, 1, 1);
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      cr_autograd_set_history (out, node, 0);
      cr_node_save (node, 0, out, TRUE);
      cr_node_unref (node);
    }
  return out;
}

CrTensor *
cr_softmax (CrTensor  *x,
            int        dim,
            GError   **error)
{
  return softmax_common (x, dim, FALSE, error);
}

CrTensor *
cr_log_softmax (CrTensor  *x,
                int        dim,
                GError   **error)
{
  return softmax_common (x, dim, TRUE, error);
}

/* ---- mse_loss ------------------------------------------------------------- */

/* MSE_LOSS: inputs (input, target), saved both; args.ints[0] the reduction. */
static gboolean
mse_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  g_autoptr(CrTensor) input = cr_node_get_saved (node, 0, error);
  g_autoptr(CrTensor) target = input != NULL ? cr_node_get_saved (node, 1, error) : NULL;
  if (target == NULL)
    return FALSE;
  /* MseLossBackwardBackward0 under create_graph. */
  return cr_pair_loss_grads (CR_OP_MSE_LOSS, node, grad_outputs[0], input, target, reduction, 0.0,
                             grad_inputs, error);
}

const CrOpInfo cr_op_row_MSE_LOSS = {
  CR_OP_MSE_LOSS, "mse_loss", "MseLossBackward0", 2, "mse",
  "∂L/∂x = 2(x − y)/N,  ∂L/∂y = −2(x − y)/N", mse_backward, NULL
};

/* Broadcast input and target to one shape as F.mse_loss does (through
 * expand, recorded only for the one that changes). */
static gboolean
broadcast_pair (CrTensor   *a,
                CrTensor   *b,
                CrTensor  **out_a,
                CrTensor  **out_b,
                GError    **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim;

  if (cr_shape_equal (a->shape, a->ndim, b->shape, b->ndim))
    {
      *out_a = cr_tensor_ref (a);
      *out_b = cr_tensor_ref (b);
      return TRUE;
    }
  if (!cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
    return FALSE;
  *out_a = cr_shape_equal (a->shape, a->ndim, shape, ndim) ? cr_tensor_ref (a)
                                                            : cr_expand (a, shape, ndim, error);
  if (*out_a == NULL)
    return FALSE;
  *out_b = cr_shape_equal (b->shape, b->ndim, shape, ndim) ? cr_tensor_ref (b)
                                                            : cr_expand (b, shape, ndim, error);
  if (*out_b == NULL)
    {
      g_clear_pointer (out_a, cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

/* Reduces the elementwise loss (a new ref, taken) and records op over
 * (input, target) on the result when needed: both are saved and args.ints[0]
 * is the reduction. */
static CrTensor *
finish_pair_loss (CrOpId        op,
                  CrTensor     *input,
                  CrTensor     *target,
                  CrTensor     *loss,
                  CrReduction   reduction,
                  GError      **error)
{
  CrTensor *inputs[2] = { input, target };
  CrTensor *out = reduce_loss (loss, reduction, error);
  CrNode *node;

  if (out == NULL || !cr_autograd_should_record (inputs, 2))
    return out;
  node = cr_node_new (op, inputs, 2, 1);
  cr_node_args (node)->ints[0] = reduction;
  cr_node_save (node, 0, input, FALSE);
  cr_node_save (node, 1, target, FALSE);
  cr_ops_attach (out, node);
  return out;
}

CrTensor *
cr_mse_loss (CrTensor     *input,
             CrTensor     *target,
             CrReduction   reduction,
             GError      **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) diff = NULL;
  CrTensor *loss;

  if (!broadcast_pair (input, target, &a, &b, error))
    return NULL;
  diff = cr_kernel_binary (CR_BINARY_SUB, a, b, error);
  if (diff == NULL)
    return NULL;
  loss = cr_kernel_binary (CR_BINARY_MUL, diff, diff, error);
  if (loss == NULL)
    return NULL;
  return finish_pair_loss (CR_OP_MSE_LOSS, a, b, loss, reduction, error);
}

/* ---- huber_loss ----------------------------------------------------------- */

/* HUBER_LOSS: inputs (input, target), saved both; args.ints[0] the
 * reduction, scalar[0] delta. ∂L/∂x = clamp(x − y, −δ, δ) · g (/ N), which
 * is differentiable once more (1 inside the band, 0 outside). */
static gboolean
huber_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  double delta = node->args->scalar[0];
  SAVED (input, 0);
  SAVED (target, 1);

  /* HuberLossBackwardBackward0 under create_graph. */
  return cr_pair_loss_grads (CR_OP_HUBER_LOSS, node, grad_outputs[0], input, target, reduction,
                             delta, grad_inputs, error);
}

const CrOpInfo cr_op_row_HUBER_LOSS = {
  CR_OP_HUBER_LOSS, "huber_loss", "HuberLossBackward0", 2, "huber",
  "∂L/∂x = x − y where |x − y| < δ, δ·sign(x − y) elsewhere", huber_backward, NULL
};

CrTensor *
cr_huber_loss (CrTensor     *input,
               CrTensor     *target,
               CrReduction   reduction,
               double        delta,
               GError      **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  CrTensor *loss = NULL;
  CrTensor *out;
  gboolean was_enabled;

  if (delta <= 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "huber_loss does not support non-positive values for delta.");
      return NULL;
    }
  if (!cr_dtype_is_floating (input->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"huber_cpu\" not implemented for '%s'", cr_dtype_scalar_name (input->dtype));
      return NULL;
    }
  if (!broadcast_pair (input, target, &a, &b, error))
    return NULL;
  /* where(|d| < δ, d²/2, δ(|d| − δ/2)), with the ops outside the graph. */
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  {
    g_autoptr(CrTensor) d = cr_sub (a, b, error);
    g_autoptr(CrTensor) ad = d != NULL ? cr_unary (CR_OP_ABS, d, error) : NULL;
    g_autoptr(CrTensor) delta_t = cr_ops_wrap_number (delta, FALSE);
    g_autoptr(CrTensor) inside = ad != NULL ? cr_binary_nograd (CR_BINARY_LT, ad, delta_t, error)
                                            : NULL;
    g_autoptr(CrTensor) sq = inside != NULL ? cr_mul (d, d, error) : NULL;
    g_autoptr(CrTensor) quad = sq != NULL ? cr_ops_mul_number (sq, 0.5, error) : NULL;
    g_autoptr(CrTensor) shifted = quad != NULL ? cr_ops_add_number (ad, -0.5 * delta, error)
                                               : NULL;
    g_autoptr(CrTensor) lin = shifted != NULL ? cr_ops_mul_number (shifted, delta, error) : NULL;

    if (lin != NULL)
      loss = cr_where (inside, quad, lin, error);
  }
  cr_grad_mode_set_enabled (was_enabled);
  if (loss == NULL)
    return NULL;
  out = finish_pair_loss (CR_OP_HUBER_LOSS, a, b, loss, reduction, error);
  if (out != NULL && out->grad_fn != NULL && out->grad_fn->op->id == CR_OP_HUBER_LOSS)
    {
      cr_node_args (out->grad_fn)->scalar[0] = delta;
      cr_node_args (out->grad_fn)->has_scalar[0] = TRUE;
    }
  return out;
}

/* The losses' loops read both operands' memory: they must share a device. */
static gboolean
check_same_device (const CrTensor *a,
                   const CrTensor *b,
                   GError        **error)
{
  if (a->device == b->device)
    return TRUE;
  cr_set_mixed_device_error (error, a->device, b->device);
  return FALSE;
}

/* ---- binary_cross_entropy_with_logits ------------------------------------ */

/* With weight w and pos_weight pw (either may be NULL), lw = (pw - 1) y + 1:
 * ∂L/∂x = (lw σ(x) − pw y) w,  ∂L/∂y = (log(1 − σ(x)) − pw log σ(x)) w
 * (−x w without pw), then times g / N. */
static gboolean
bce_logits_weighted_backward (CrNode          *node,
                              CrTensor        *x,
                              CrTensor        *y,
                              CrTensor        *w,
                              CrTensor        *pw,
                              CrTensor        *grad,
                              CrTensor       **grad_inputs,
                              GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  g_autoptr(CrTensor) s = cr_sigmoid (x, error);

  if (s == NULL)
    return FALSE;
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(CrTensor) d = NULL;

      if (!cr_ops_needs_grad (node, i))
        continue;
      if (i == 0 && pw == NULL)
        d = cr_sub (s, y, error);
      else if (i == 0)
        {
          g_autoptr(CrTensor) pw1 = cr_ops_add_number (pw, -1.0, error);
          g_autoptr(CrTensor) t = pw1 != NULL ? cr_mul (pw1, y, error) : NULL;
          g_autoptr(CrTensor) lw = t != NULL ? cr_ops_add_number (t, 1.0, error) : NULL;
          g_autoptr(CrTensor) a = lw != NULL ? cr_mul (lw, s, error) : NULL;
          g_autoptr(CrTensor) b = a != NULL ? cr_mul (pw, y, error) : NULL;
          d = b != NULL ? cr_sub (a, b, error) : NULL;
        }
      else if (pw == NULL)
        d = cr_neg (x, error);
      else
        {
          g_autoptr(CrTensor) one_minus = cr_rsub_scalar (s, 1.0, error);
          g_autoptr(CrTensor) l1 = one_minus != NULL ? cr_log (one_minus, error) : NULL;
          g_autoptr(CrTensor) l0 = l1 != NULL ? cr_log (s, error) : NULL;
          g_autoptr(CrTensor) p0 = l0 != NULL ? cr_mul (pw, l0, error) : NULL;
          d = p0 != NULL ? cr_sub (l1, p0, error) : NULL;
        }
      if (d != NULL && w != NULL)
        {
          CrTensor *wd = cr_mul (d, w, error);
          g_clear_pointer (&d, cr_tensor_unref);
          d = wd;
        }
      if (d == NULL
          || (grad_inputs[i] = scale_grad (d, grad, 1.0, reduction, x->numel, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* BCE_WITH_LOGITS: inputs (input, target), saved both; args.ints[0] the
 * reduction; args.ints[1] bit 1: the weight (expanded to the input's shape)
 * is saved next, bit 2: then pos_weight (expanded too). */
static gboolean
bce_logits_backward (CrNode          *node,
                     CrTensor *const *grad_outputs,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  gint64 extra = node->args->ints[1];
  g_autoptr(CrTensor) input = cr_node_get_saved (node, 0, error);
  g_autoptr(CrTensor) target = input != NULL ? cr_node_get_saved (node, 1, error) : NULL;
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) pw = NULL;
  guint slot = 2;

  if (target == NULL)
    return FALSE;
  if ((extra & 1) && (w = cr_node_get_saved (node, slot++, error)) == NULL)
    return FALSE;
  if ((extra & 2) && (pw = cr_node_get_saved (node, slot, error)) == NULL)
    return FALSE;
  if (w != NULL || pw != NULL)
    return bce_logits_weighted_backward (node, input, target, w, pw, grad_outputs[0],
                                         grad_inputs, error);
  /* As PyTorch 1.13 writes them (so a double backward meets its nodes):
   * (sigmoid(x) - y) * g, and -x * g, each / N for a mean. */
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(CrTensor) s = NULL;
      g_autoptr(CrTensor) d = NULL;
      g_autoptr(CrTensor) prod = NULL;

      if (!cr_ops_needs_grad (node, i))
        continue;
      if (i == 0)
        {
          s = cr_sigmoid (input, error);
          d = s != NULL ? cr_sub (s, target, error) : NULL;
        }
      else
        d = cr_neg (input, error);
      if (d == NULL || (prod = cr_mul (d, grad_outputs[0], error)) == NULL)
        return FALSE;
      grad_inputs[i] = reduction == CR_REDUCTION_MEAN
                       ? cr_binary_number (CR_OP_DIV, prod, (double) input->numel, error)
                       : g_steal_pointer (&prod);
      if (grad_inputs[i] == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_BCE_WITH_LOGITS = {
  CR_OP_BCE_WITH_LOGITS, "binary_cross_entropy_with_logits",
  "BinaryCrossEntropyWithLogitsBackward0", 2, "bce",
  "∂L/∂x = (σ(x) − y)/N,  ∂L/∂y = −x/N", bce_logits_backward, NULL
};

/* The elementwise losses are computed in the input's own precision, in
 * PyTorch's order of operations, so that float32 results match its digits. */
#define BCE_LOGITS_LOOP(T, EXP, LOG)                                       \
  G_STMT_START {                                                           \
    const T *xp = (const T *) cr_tensor_data (xc);                         \
    const T *yp = (const T *) cr_tensor_data (yc);                         \
    T *lp = (T *) cr_tensor_data (loss);                                   \
    for (gint64 i = 0; i < n; i++)                                         \
      {                                                                    \
        T x = xp[i], y = yp[i];                                            \
        T max_val = -x > 0 ? -x : 0;                                       \
        T a = (1 - y) * x + max_val;                                       \
        lp[i] = a + LOG (EXP (-max_val) + EXP (-x - max_val));             \
      }                                                                    \
  } G_STMT_END

CrTensor *
cr_bce_with_logits (CrTensor     *input,
                    CrTensor     *target,
                    CrReduction   reduction,
                    GError      **error)
{
  CrDType dtype;
  g_autoptr(CrTensor) xc = NULL;
  g_autoptr(CrTensor) yc = NULL;
  CrTensor *loss;
  gint64 n = input->numel;

  if (!cr_shape_equal (input->shape, input->ndim, target->shape, target->ndim))
    {
      g_autofree char *ts = torch_size (target);
      g_autofree char *is = torch_size (input);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "Target size (%s) must be the same as input size (%s)", ts, is);
      return NULL;
    }
  dtype = cr_dtype_result_type (input, target);
  if (!cr_dtype_is_floating (input->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "result type Float can't be cast to the desired output type %s",
                   cr_dtype_scalar_name (input->dtype));
      return NULL;
    }
  if (!cr_dtype_is_floating (dtype))
    dtype = CR_DTYPE_FLOAT32;

  if (!check_same_device (input, target, error))
    return NULL;
  xc = cr_kernel_cast (input, dtype, error);
  yc = xc != NULL ? cr_kernel_cast (target, dtype, error) : NULL;
  if (yc == NULL)
    return NULL;
  if (input->device != CR_DEVICE_CPU)
    loss = cr_ops_bce_logits_device (xc, yc, error);
  else
    {
      loss = cr_tensor_new_empty (input->shape, input->ndim, dtype, input->device, error);
      if (loss != NULL && dtype == CR_DTYPE_FLOAT32)
        BCE_LOGITS_LOOP (float, expf, logf);
      else if (loss != NULL)
        BCE_LOGITS_LOOP (double, exp, log);
    }
  if (loss == NULL)
    return NULL;
  return finish_pair_loss (CR_OP_BCE_WITH_LOGITS, input, target, loss, reduction, error);
}

/* With weight and pos_weight (PyTorch's order of operations, per element):
 * m = max(-x, 0), lw = (pw - 1) y + 1,
 * loss = ((1 - y) x + lw (log(e^-m + e^(-x-m)) + m)) w. */
#define BCE_LOGITS_WEIGHTED_LOOP(T, EXP, LOG)                              \
  G_STMT_START {                                                           \
    const T *xp = (const T *) cr_tensor_data (hx);                         \
    const T *yp = (const T *) cr_tensor_data (hy);                         \
    const T *wp = hw != NULL ? (const T *) cr_tensor_data (hw) : NULL;     \
    const T *pp = hp != NULL ? (const T *) cr_tensor_data (hp) : NULL;     \
    T *lp = (T *) cr_tensor_data (loss);                                   \
    for (gint64 i = 0; i < n; i++)                                         \
      {                                                                    \
        T x = xp[i], y = yp[i];                                            \
        T max_val = -x > 0 ? -x : 0;                                       \
        T l;                                                               \
        if (pp != NULL)                                                    \
          {                                                                \
            T lw = (pp[i] - 1) * y + 1;                                    \
            l = (1 - y) * x                                                \
                + lw * (LOG (EXP (-max_val) + EXP (-x - max_val)) + max_val); \
          }                                                                \
        else                                                               \
          l = (1 - y) * x + max_val                                        \
              + LOG (EXP (-max_val) + EXP (-x - max_val));                 \
        lp[i] = wp != NULL ? l * wp[i] : l;                                \
      }                                                                    \
  } G_STMT_END

/* expand (t, shape) outside the graph, cast to dtype, on the host, contiguous. */
static CrTensor *
host_expanded (CrTensor       *t,
               const CrTensor *like,
               CrDType         dtype,
               GError        **error)
{
  g_autoptr(CrTensor) e = NULL;
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) h = NULL;
  gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);

  e = cr_expand (t, like->shape, like->ndim, error);
  cr_grad_mode_set_enabled (grad_was_enabled);
  c = e != NULL ? cr_kernel_cast (e, dtype, error) : NULL;
  h = c == NULL ? NULL
      : c->device != CR_DEVICE_CPU ? cr_tensor_to_device (c, CR_DEVICE_CPU, error)
      : cr_tensor_ref (c);
  return h != NULL ? cr_tensor_contiguous (h, error) : NULL;
}

CrTensor *
cr_bce_with_logits_full (CrTensor     *input,
                         CrTensor     *target,
                         CrTensor     *weight,
                         CrTensor     *pos_weight,
                         CrReduction   reduction,
                         GError      **error)
{
  g_autoptr(CrTensor) hx = NULL;
  g_autoptr(CrTensor) hy = NULL;
  g_autoptr(CrTensor) hw = NULL;
  g_autoptr(CrTensor) hp = NULL;
  g_autoptr(CrTensor) loss = NULL;
  g_autoptr(CrTensor) dw = NULL;
  g_autoptr(CrTensor) dp = NULL;
  CrTensor *inputs[2] = { input, target };
  gint64 n = input->numel;
  CrDType dtype;
  CrTensor *out;
  CrNode *node;
  guint slot = 2;

  if (weight == NULL && pos_weight == NULL)
    return cr_bce_with_logits (input, target, reduction, error);
  /* The checks of the plain loss, on a throwaway result. */
  {
    g_autoptr(CrTensor) check = NULL;
    gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
    check = cr_bce_with_logits (input, target, CR_REDUCTION_NONE, error);
    cr_grad_mode_set_enabled (grad_was_enabled);
    if (check == NULL)
      return NULL;
    dtype = check->dtype;
  }
  if (input->device != CR_DEVICE_CPU)
    {
      /* A chain of device kernels (the weights expanded on the device). */
      if (!check_same_device (input, target, error)
          || (weight != NULL && !check_same_device (input, weight, error))
          || (pos_weight != NULL && !check_same_device (input, pos_weight, error)))
        return NULL;
      loss = cr_ops_bce_logits_weighted_device (input, target, weight, pos_weight, dtype, error);
      if (loss == NULL)
        return NULL;
    }
  else
    {
      hx = host_expanded (input, input, dtype, error);
      hy = hx != NULL ? host_expanded (target, input, dtype, error) : NULL;
      if (hy == NULL
          || (weight != NULL && (hw = host_expanded (weight, input, dtype, error)) == NULL)
          || (pos_weight != NULL
              && (hp = host_expanded (pos_weight, input, dtype, error)) == NULL))
        return NULL;
      loss = cr_tensor_new_empty (input->shape, input->ndim, dtype, CR_DEVICE_CPU, error);
      if (loss == NULL)
        return NULL;
      if (dtype == CR_DTYPE_FLOAT32)
        BCE_LOGITS_WEIGHTED_LOOP (float, expf, logf);
      else
        BCE_LOGITS_WEIGHTED_LOOP (double, exp, log);
    }
  out = reduce_loss (g_steal_pointer (&loss), reduction, error);
  if (out == NULL || !cr_autograd_should_record (inputs, 2))
    return out;

  /* The backward's weights, on the input's device and in its shape. */
  {
    gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
    dw = weight != NULL ? cr_expand (weight, input->shape, input->ndim, error) : NULL;
    dp = pos_weight != NULL ? cr_expand (pos_weight, input->shape, input->ndim, error) : NULL;
    cr_grad_mode_set_enabled (grad_was_enabled);
  }
  node = cr_node_new (CR_OP_BCE_WITH_LOGITS, inputs, 2, 1);
  cr_node_args (node)->ints[0] = reduction;
  cr_node_args (node)->ints[1] = (dw != NULL ? 1 : 0) | (dp != NULL ? 2 : 0);
  cr_node_save (node, 0, input, FALSE);
  cr_node_save (node, 1, target, FALSE);
  if (dw != NULL)
    cr_node_save (node, slot++, dw, FALSE);
  if (dp != NULL)
    cr_node_save (node, slot, dp, FALSE);
  cr_ops_attach (out, node);
  return out;
}

/* ---- binary_cross_entropy ------------------------------------------------- */

/* BCE: inputs (input, target), saved both, and saved[2] the weight expanded
 * to the input's shape when one was given; args.ints[0] the reduction. */
static gboolean
bce_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  CrReduction reduction = (CrReduction) node->args->ints[0];
  g_autoptr(CrTensor) x = cr_node_get_saved (node, 0, error);
  g_autoptr(CrTensor) y = x != NULL ? cr_node_get_saved (node, 1, error) : NULL;
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) one_minus_x = NULL;

  if (y == NULL)
    return FALSE;
  if (node->n_saved > 2 && (w = cr_node_get_saved (node, 2, error)) == NULL)
    return FALSE;
  one_minus_x = cr_rsub_scalar (x, 1.0, error);
  if (one_minus_x == NULL)
    return FALSE;

  if (cr_ops_needs_grad (node, 0))
    {
      /* g * (x - y) / max((1 - x) * x, 1e-12) */
      g_autoptr(CrTensor) d = cr_sub (x, y, error);
      g_autoptr(CrTensor) v = d != NULL ? cr_mul (one_minus_x, x, error) : NULL;
      g_autoptr(CrTensor) c = v != NULL ? cr_clamp (v, TRUE, 1e-12, FALSE, 0, error) : NULL;
      g_autoptr(CrTensor) q = c != NULL ? cr_div (d, c, error) : NULL;

      if (q != NULL && w != NULL)
        {
          CrTensor *wq = cr_mul (q, w, error);
          g_clear_pointer (&q, cr_tensor_unref);
          q = wq;
        }
      if (q == NULL
          || (grad_inputs[0] = scale_grad (q, grad_outputs[0], 1.0, reduction,
                                           x->numel, error)) == NULL)
        return FALSE;
    }
  if (cr_ops_needs_grad (node, 1))
    {
      /* g * (max(log(1 - x), -100) - max(log(x), -100)) */
      g_autoptr(CrTensor) l1 = cr_log (one_minus_x, error);
      g_autoptr(CrTensor) c1 = l1 != NULL ? cr_clamp (l1, TRUE, -100, FALSE, 0, error) : NULL;
      g_autoptr(CrTensor) l0 = c1 != NULL ? cr_log (x, error) : NULL;
      g_autoptr(CrTensor) c0 = l0 != NULL ? cr_clamp (l0, TRUE, -100, FALSE, 0, error) : NULL;
      g_autoptr(CrTensor) d = c0 != NULL ? cr_sub (c1, c0, error) : NULL;

      if (d != NULL && w != NULL)
        {
          CrTensor *wd = cr_mul (d, w, error);
          g_clear_pointer (&d, cr_tensor_unref);
          d = wd;
        }
      if (d == NULL
          || (grad_inputs[1] = scale_grad (d, grad_outputs[0], 1.0, reduction,
                                           x->numel, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_BCE = {
  CR_OP_BCE, "binary_cross_entropy", "BinaryCrossEntropyBackward0", 2, "bce",
  "∂L/∂x = (x − y) / (x(1 − x)N)", bce_backward, NULL
};

#define BCE_LOOP(T, LOG)                                                   \
  G_STMT_START {                                                           \
    const T *xp = (const T *) cr_tensor_data (xc);                         \
    const T *yp = (const T *) cr_tensor_data (yc);                         \
    T *lp = (T *) cr_tensor_data (loss);                                   \
    for (gint64 i = 0; i < n; i++)                                         \
      {                                                                    \
        T x = xp[i], y = yp[i];                                            \
        T l1, l0;                                                          \
        if (!(x >= 0 && x <= 1))                                           \
          {                                                                \
            bad = TRUE;                                                    \
            break;                                                         \
          }                                                                \
        l1 = LOG (1 - x);                                                  \
        l0 = LOG (x);                                                      \
        lp[i] = (y - 1) * (l1 > -100 ? l1 : -100)                          \
                - y * (l0 > -100 ? l0 : -100);                             \
      }                                                                    \
  } G_STMT_END

CrTensor *
cr_binary_cross_entropy (CrTensor     *input,
                         CrTensor     *target,
                         CrReduction   reduction,
                         GError      **error)
{
  return cr_binary_cross_entropy_weighted (input, target, NULL, reduction, error);
}

CrTensor *
cr_binary_cross_entropy_weighted (CrTensor     *input,
                                  CrTensor     *target,
                                  CrTensor     *weight,
                                  CrReduction   reduction,
                                  GError      **error)
{
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) xc = NULL;
  g_autoptr(CrTensor) yc = NULL;
  g_autoptr(CrTensor) loss = NULL;
  gint64 n = input->numel;
  gboolean bad = FALSE;

  if (!cr_shape_equal (input->shape, input->ndim, target->shape, target->ndim))
    {
      g_autofree char *ts = torch_size (target);
      g_autofree char *is = torch_size (input);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "Using a target size (%s) that is different to the input size (%s) is "
                   "deprecated. Please ensure they have the same size.", ts, is);
      return NULL;
    }
  if (target->dtype != input->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Found dtype %s but expected %s",
                   cr_dtype_scalar_name (target->dtype), cr_dtype_scalar_name (input->dtype));
      return NULL;
    }
  if (!cr_dtype_is_floating (input->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"binary_cross_entropy\" not implemented for '%s'",
                   cr_dtype_scalar_name (input->dtype));
      return NULL;
    }

  if (!check_same_device (input, target, error))
    return NULL;
  xc = cr_tensor_contiguous (input, error);
  yc = xc != NULL ? cr_tensor_contiguous (target, error) : NULL;
  if (yc == NULL)
    return NULL;
  if (input->device != CR_DEVICE_CPU)
    {
      loss = cr_ops_bce_device (xc, yc, &bad, error);
      if (loss == NULL && !bad)
        return NULL;
    }
  else
    {
      loss = cr_tensor_new_empty (input->shape, input->ndim, input->dtype, input->device, error);
      if (loss == NULL)
        return NULL;
      if (input->dtype == CR_DTYPE_FLOAT32)
        BCE_LOOP (float, logf);
      else
        BCE_LOOP (double, log);
    }
  if (bad)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "all elements of input should be between 0 and 1");
      return NULL;
    }
  if (weight == NULL)
    return finish_pair_loss (CR_OP_BCE, input, target, g_steal_pointer (&loss), reduction,
                             error);

  /* Class weights: each element's loss times its (broadcast) weight, which
   * the backward applies too; the weight itself gets no gradient. */
  {
    gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
    w = cr_expand (weight, input->shape, input->ndim, error);
    cr_grad_mode_set_enabled (grad_was_enabled);
  }
  if (w == NULL)
    return NULL;
  {
    CrTensor *weighted = cr_kernel_binary (CR_BINARY_MUL, loss, w, error);
    CrTensor *inputs[2] = { input, target };
    CrTensor *out = weighted != NULL ? reduce_loss (weighted, reduction, error) : NULL;
    CrNode *node;

    if (out == NULL || !cr_autograd_should_record (inputs, 2))
      return out;
    node = cr_node_new (CR_OP_BCE, inputs, 2, 1);
    cr_node_args (node)->ints[0] = reduction;
    cr_node_save (node, 0, input, FALSE);
    cr_node_save (node, 1, target, FALSE);
    cr_node_save (node, 2, w, FALSE);
    cr_ops_attach (out, node);
    return out;
  }
}

/* ---- nll_loss ---------------------------------------------------------------- */

#define IGNORE_INDEX CR_OPS_IGNORE_INDEX

/* The geometry of an nll_loss: input (N, C, rest...) or (C); target (N,
 * rest...) or 0-d. Input position of sample (n, r) and class c:
 * (n * C + c) * R + r. */
typedef CrNllShape NllShape;

/* NLL_LOSS: input logp; saved[0] the target, saved[1] the class weights
 * (when given), saved[2] logp and saved[3] the total weight (unused here:
 * kept as PyTorch keeps them); args.ints[0] the reduction, args.ints[1] the ignore_index,
 * args.scalar[0] what the mean divides by: the number of targets not
 * ignored, or their total weight. */
static gboolean
nll_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  CrReduction reduction = (CrReduction) node->args->ints[0];
  CrTensor *grad = grad_outputs[0];
  g_autoptr(CrTensor) target = cr_node_get_saved (node, 0, error);
  g_autoptr(CrTensor) weight = NULL;
  g_autoptr(CrTensor) w64 = NULL;
  g_autoptr(CrTensor) tc = NULL;
  g_autoptr(CrTensor) gc = NULL;
  g_autoptr(CrTensor) out = NULL;
  gint64 ignore_index = node->args->ints[1];
  const double *wp = NULL;
  NllShape s;
  const gint64 *tp;
  double scale;

  if (target == NULL)
    return FALSE;
  if (node->n_saved > 1 && node->saved[1].was_saved && (weight = cr_node_get_saved (node, 1, error)) == NULL)
    return FALSE;
  s.N = meta->ndim >= 2 ? meta->shape[0] : 1;
  s.C = meta->ndim >= 2 ? meta->shape[1] : meta->shape[0];
  s.R = 1;
  for (int d = 2; d < meta->ndim; d++)
    s.R *= meta->shape[d];
  scale = reduction == CR_REDUCTION_MEAN ? -1.0 / node->args->scalar[0] : -1.0;
  if (meta->device != CR_DEVICE_CPU)
    {
      grad_inputs[0] = cr_ops_nll_backward_device (meta, &s, target, weight, ignore_index, grad,
                                                   reduction, scale, error);
      return grad_inputs[0] != NULL;
    }
  if (weight != NULL)
    {
      w64 = cr_kernel_cast (weight, CR_DTYPE_FLOAT64, error);
      if (w64 == NULL)
        return FALSE;
      wp = (const double *) cr_tensor_data (w64);
    }
  tc = cr_tensor_contiguous (target, error);
  if (tc == NULL)
    return FALSE;
  tp = (const gint64 *) cr_tensor_data (tc);

  out = cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return FALSE;

  if (!cr_autograd_should_record (&grad, 1))
    {
      /* Straight into the zeros: -g (per sample when unreduced) at each target. */
      g_autoptr(CrTensor) g64 = cr_kernel_cast (grad, CR_DTYPE_FLOAT64, error);
      const double *gp;

      if (g64 == NULL)
        return FALSE;
      gp = (const double *) cr_tensor_data (g64);
      for (gint64 n = 0; n < s.N; n++)
        for (gint64 r = 0; r < s.R; r++)
          {
            gint64 t = tp[n * s.R + r];
            double g = reduction == CR_REDUCTION_NONE ? gp[n * s.R + r] : gp[0];
            gint64 at;

            if (t == ignore_index)
              continue;
            if (wp != NULL)
              g *= wp[t];
            at = (n * s.C + t) * s.R + r;
            if (meta->dtype == CR_DTYPE_FLOAT32)
              ((float *) cr_tensor_data (out))[at] = (float) (scale * g);
            else
              ((double *) cr_tensor_data (out))[at] = scale * g;
          }
      grad_inputs[0] = g_steal_pointer (&out);
      return TRUE;
    }

  /* create_graph: a constant one-hot (scaled) times the gradient, which is
   * differentiable in the gradient. */
  for (gint64 n = 0; n < s.N; n++)
    for (gint64 r = 0; r < s.R; r++)
      {
        gint64 t = tp[n * s.R + r];
        if (t != ignore_index)
          cr_tensor_set_flat (out, (n * s.C + t) * s.R + r, wp != NULL ? scale * wp[t] : scale);
      }
  if (reduction == CR_REDUCTION_NONE && meta->ndim >= 2)
    {
      gc = cr_unsqueeze (grad, 1, error);
      if (gc == NULL)
        return FALSE;
    }
  else
    gc = cr_tensor_ref (grad);
  grad_inputs[0] = cr_mul (out, gc, error);
  return grad_inputs[0] != NULL;
}

const CrOpInfo cr_op_row_NLL_LOSS = {
  CR_OP_NLL_LOSS, "nll_loss", "NllLossBackward0", 1, "nll",
  "∂L/∂logpₙ,ₖ = −1/N where k = targetₙ, else 0", nll_backward, NULL
};

/* The same for an input of 3 or more dims (PyTorch's nll_loss2d). */
const CrOpInfo cr_op_row_NLL_LOSS2D = {
  CR_OP_NLL_LOSS2D, "nll_loss2d", "NllLoss2DBackward0", 1, "nll",
  "∂L/∂logpₙ,ₖ = −1/N where k = targetₙ, else 0", nll_backward, NULL
};

CrTensor *
cr_nll_loss (CrTensor     *logp,
             CrTensor     *target,
             CrReduction   reduction,
             GError      **error)
{
  return cr_nll_loss_full (logp, target, NULL, IGNORE_INDEX, reduction, error);
}

/* PyTorch's nll_loss_nd for an input of 3 or more than 4 dims: nll_loss2d
 * of the input viewed as (N, C, 1, -1) (ViewBackward0 under it), the
 * unreduced loss viewed back to (N, d...) (ViewBackward0 on top). */
static CrTensor *
nll_loss_through_2d (CrTensor     *logp,
                     CrTensor     *target,
                     CrTensor     *weight,
                     gint64        ignore_index,
                     CrReduction   reduction,
                     GError      **error)
{
  gint64 n = logp->shape[0], c = logp->shape[1];
  gint64 input_shape[4] = { n, c, 1, logp->numel / (n * c) };
  gint64 target_shape[3] = { n, 1, logp->numel / (n * c) };
  g_autoptr(CrTensor) xc = cr_contiguous (logp, error);
  g_autoptr(CrTensor) xv = xc != NULL ? cr_view (xc, input_shape, 4, error) : NULL;
  g_autoptr(CrTensor) tc = xv != NULL ? cr_contiguous (target, error) : NULL;
  g_autoptr(CrTensor) tv = tc != NULL ? cr_view (tc, target_shape, 3, error) : NULL;
  g_autoptr(CrTensor) out = NULL;

  if (tv == NULL)
    return NULL;
  out = cr_nll_loss_full (xv, tv, weight, ignore_index, reduction, error);
  if (out == NULL || reduction != CR_REDUCTION_NONE)
    return g_steal_pointer (&out);
  return cr_view (out, target->shape, target->ndim, error);
}

CrTensor *
cr_nll_loss_full (CrTensor     *logp,
                  CrTensor     *target,
                  CrTensor     *weight,
                  gint64        ignore_index,
                  CrReduction   reduction,
                  GError      **error)
{
  g_autoptr(CrTensor) lc = NULL;
  g_autoptr(CrTensor) tc = NULL;
  g_autoptr(CrTensor) loss = NULL;
  g_autoptr(CrTensor) w64 = NULL;
  const double *wp = NULL;
  const gint64 *tp;
  NllShape s;
  gint64 count = 0;
  double divisor = 0.0;
  double total = 0.0;
  CrTensor *out;

  if (logp->ndim < 1)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "Expected 1 or more dimensions (got %d)", logp->ndim);
      return NULL;
    }
  if (logp->ndim >= 2 && (target->ndim == 0 || target->shape[0] != logp->shape[0]))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "Expected input batch_size (%" G_GINT64_FORMAT ") to match target "
                   "batch_size (%" G_GINT64_FORMAT ").",
                   logp->shape[0], target->ndim == 0 ? (gint64) 0 : target->shape[0]);
      return NULL;
    }
  if (target->dtype != CR_DTYPE_INT64)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected scalar type Long but found %s", cr_dtype_scalar_name (target->dtype));
      return NULL;
    }
  if (logp->ndim == 1 && target->ndim != 0)
    {
      g_autofree char *is = cr_shape_to_string (logp->shape, logp->ndim);
      g_autofree char *ts = cr_shape_to_string (target->shape, target->ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "size mismatch (got input: %s, target: %s)", is, ts);
      return NULL;
    }
  if (logp->ndim >= 2)
    {
      gboolean ok = target->ndim == logp->ndim - 1;
      for (int d = 2; ok && d < logp->ndim; d++)
        ok = target->shape[d - 1] == logp->shape[d];
      if (!ok)
        {
          g_autofree char *is = cr_shape_to_string (logp->shape, logp->ndim);
          g_autofree char *ts = cr_shape_to_string (target->shape, target->ndim);
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "size mismatch (got input: %s, target: %s)", is, ts);
          return NULL;
        }
    }
  if (!cr_dtype_is_floating (logp->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"nll_loss_out_frame\" not implemented for '%s'",
                   cr_dtype_scalar_name (logp->dtype));
      return NULL;
    }

  if ((logp->ndim == 3 || logp->ndim > 4) && logp->numel > 0)
    return nll_loss_through_2d (logp, target, weight, ignore_index, reduction, error);

  s.N = logp->ndim >= 2 ? logp->shape[0] : 1;
  s.C = logp->ndim >= 2 ? logp->shape[1] : logp->shape[0];
  s.R = 1;
  for (int d = 2; d < logp->ndim; d++)
    s.R *= logp->shape[d];

  if (weight != NULL)
    {
      if (weight->numel != s.C)
        {
          g_autofree char *ws = cr_shape_to_string (weight->shape, weight->ndim);
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "weight tensor should be defined either for all %" G_GINT64_FORMAT
                       " classes or no classes but got weight tensor of shape: %s", s.C, ws);
          return NULL;
        }
      if (weight->dtype != logp->dtype)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "expected scalar type %s but found %s",
                       cr_dtype_scalar_name (logp->dtype), cr_dtype_scalar_name (weight->dtype));
          return NULL;
        }
      if (!check_same_device (logp, weight, error))
        return NULL;
    }
  if (!check_same_device (logp, target, error))
    return NULL;
  if (logp->device != CR_DEVICE_CPU)
    {
      out = cr_ops_nll_forward_device (&s, logp, target, weight, ignore_index, reduction, &count,
                                       &divisor, error);
      if (out == NULL)
        return NULL;
      goto record;
    }
  if (weight != NULL)
    {
      w64 = cr_kernel_cast (weight, CR_DTYPE_FLOAT64, error);
      if (w64 == NULL)
        return NULL;
      wp = (const double *) cr_tensor_data (w64);
    }
  lc = cr_tensor_contiguous (logp, error);
  tc = lc != NULL ? cr_tensor_contiguous (target, error) : NULL;
  if (tc == NULL)
    return NULL;
  tp = (const gint64 *) cr_tensor_data (tc);

  if (reduction == CR_REDUCTION_NONE)
    {
      loss = cr_tensor_new_empty (target->shape, target->ndim, logp->dtype, CR_DEVICE_CPU, error);
      if (loss == NULL)
        return NULL;
    }

  /* PyTorch's nll_loss(2d)_out_frame: partial sums in the input's dtype,
   * cascaded every 16 positions over eight levels (float32 rounded at each
   * step; the double arithmetic below rounds exactly as float would). */
  gboolean f32 = logp->dtype == CR_DTYPE_FLOAT32;
  double loss_partial[8] = { 0 }, weight_partial[8] = { 0 };
#define AS_DTYPE(x) (f32 ? (double) (float) (x) : (x))

  for (gint64 n = 0; n < s.N; n++)
    for (gint64 r = 0; r < s.R; r++)
      {
        gint64 t = tp[n * s.R + r];
        gint64 at = (n * s.C + t) * s.R + r;
        gint64 linear = n * s.R + r;
        double v, w;

        if (t == ignore_index)
          {
            if (loss != NULL)
              cr_tensor_set_flat (loss, n * s.R + r, 0.0);
            continue;
          }
        if (t < 0 || t >= s.C)
          {
            g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                         "Target %" G_GINT64_FORMAT " is out of bounds.", t);
            return NULL;
          }
        v = logp->dtype == CR_DTYPE_FLOAT32 ? ((const float *) cr_tensor_data (lc))[at]
                                            : ((const double *) cr_tensor_data (lc))[at];
        w = wp != NULL ? wp[t] : 1.0;
        if (loss != NULL)
          cr_tensor_set_flat (loss, n * s.R + r, -v * w);
        loss_partial[0] = AS_DTYPE (loss_partial[0] - AS_DTYPE (v * w));
        weight_partial[0] = AS_DTYPE (weight_partial[0] + w);
        for (int j = 0; j + 1 < 8; j++)
          {
            if ((linear & ((gint64) 15 << (j * 4))) != 0)
              break;
            loss_partial[j + 1] = AS_DTYPE (loss_partial[j + 1] + loss_partial[j]);
            weight_partial[j + 1] = AS_DTYPE (weight_partial[j + 1] + weight_partial[j]);
            loss_partial[j] = 0;
            weight_partial[j] = 0;
          }
        count++;
      }
  for (int j = 0; j < 8; j++)
    {
      total = AS_DTYPE (total + loss_partial[j]);
      divisor = AS_DTYPE (divisor + weight_partial[j]);
    }
  if (wp == NULL)
    divisor = AS_DTYPE ((double) count);
#undef AS_DTYPE

  if (reduction == CR_REDUCTION_NONE)
    out = g_steal_pointer (&loss);
  else
    {
      double value = reduction == CR_REDUCTION_SUM ? total : total / divisor;
      if (f32)
        value = (float) value;
      out = cr_tensor_new_scalar (value, logp->dtype);
    }

record:
  if (cr_autograd_should_record (&logp, 1))
    {
      CrNode *node = cr_node_new (logp->ndim >= 3 ? CR_OP_NLL_LOSS2D : CR_OP_NLL_LOSS,
                                  &logp, 1, 1);
      cr_node_args (node)->ints[0] = reduction;
      cr_node_args (node)->ints[1] = ignore_index;
      cr_node_args (node)->scalar[0] = divisor;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_node_save (node, 0, target, FALSE);
      if (weight != NULL)
        cr_node_save (node, 1, weight, FALSE);
      /* What PyTorch's node keeps besides (its _saved_self and
       * _saved_total_weight, which is 0 when an unreduced batch skips it):
       * the backward needs neither. */
      {
        double total_weight = reduction == CR_REDUCTION_NONE && logp->ndim >= 2 ? 0.0 : divisor;
        g_autoptr(CrTensor) host = cr_tensor_new_scalar (total_weight, logp->dtype);
        g_autoptr(CrTensor) kept = cr_tensor_to_device (host, logp->device, NULL);
        cr_node_save (node, 2, logp, FALSE);
        if (kept != NULL)
          cr_node_save (node, 3, kept, FALSE);
      }
      cr_ops_attach (out, node);
    }
  return out;
}

/* ---- cross_entropy -------------------------------------------------------- */

/* Soft labels (target holds class probabilities): -(log_softmax * target)
 * summed over classes, as PyTorch composes it. */
static CrTensor *
cross_entropy_soft (CrTensor     *lsm,
                    CrTensor     *target,
                    CrTensor     *weight,
                    int           class_dim,
                    CrReduction   reduction,
                    GError      **error)
{
  g_autoptr(CrTensor) unweighted = NULL;
  g_autoptr(CrTensor) prod = NULL;
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(CrTensor) neg = NULL;

  if (!cr_shape_equal (lsm->shape, lsm->ndim, target->shape, target->ndim))
    {
      g_autofree char *is = cr_shape_to_string (lsm->shape, lsm->ndim);
      g_autofree char *ts = cr_shape_to_string (target->shape, target->ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "size mismatch (got input: %s, target: %s)", is, ts);
      return NULL;
    }
  unweighted = cr_mul (lsm, target, error);
  if (unweighted == NULL)
    return NULL;
  if (weight == NULL)
    prod = g_steal_pointer (&unweighted);
  else
    {
      /* The class weights along the class dim: (1, C, 1, ...). */
      gint64 shape[CR_MAX_DIMS];
      g_autoptr(CrTensor) w = NULL;

      if (weight->ndim != 1 || weight->shape[0] != lsm->shape[class_dim])
        {
          g_autofree char *ws = cr_shape_to_string (weight->shape, weight->ndim);
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "cross_entropy: weight tensor should be defined either for all %"
                       G_GINT64_FORMAT " classes or no classes but got weight tensor of shape: %s",
                       lsm->shape[class_dim], ws);
          return NULL;
        }
      for (int d = 0; d < lsm->ndim; d++)
        shape[d] = d == class_dim ? weight->shape[0] : 1;
      w = lsm->ndim > 1 ? cr_view (weight, shape, lsm->ndim, error) : cr_tensor_ref (weight);
      prod = w != NULL ? cr_mul (unweighted, w, error) : NULL;
      if (prod == NULL)
        return NULL;
    }
  if (reduction == CR_REDUCTION_NONE)
    {
      s = cr_sum_dim (prod, &class_dim, 1, FALSE, error);
      return s != NULL ? cr_neg (s, error) : NULL;
    }
  s = cr_sum (prod, error);
  neg = s != NULL ? cr_neg (s, error) : NULL;
  if (neg == NULL || reduction == CR_REDUCTION_SUM)
    return g_steal_pointer (&neg);
  /* At C++'s tensor / int: DivBackward1. */
  return cr_binary_number (CR_OP_DIV, neg, (double) (lsm->numel / lsm->shape[class_dim]), error);
}

CrTensor *
cr_cross_entropy (CrTensor     *logits,
                  CrTensor     *target,
                  CrReduction   reduction,
                  GError      **error)
{
  return cr_cross_entropy_full (logits, target, NULL, IGNORE_INDEX, reduction, error);
}

CrTensor *
cr_cross_entropy_full (CrTensor     *logits,
                       CrTensor     *target,
                       CrTensor     *weight,
                       gint64        ignore_index,
                       CrReduction   reduction,
                       GError      **error)
{
  int class_dim = logits->ndim == 1 ? 0 : 1;
  g_autoptr(CrTensor) lsm = NULL;

  if (logits->ndim == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "Expected 1 or more dimensions (got %d)", logits->ndim);
      return NULL;
    }
  lsm = cr_log_softmax (logits, class_dim, error);
  if (lsm == NULL)
    return NULL;
  if (cr_dtype_is_floating (target->dtype))
    {
      if (ignore_index >= 0)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "ignore_index is not supported for floating point target");
          return NULL;
        }
      return cross_entropy_soft (lsm, target, weight, class_dim, reduction, error);
    }
  return cr_nll_loss_full (lsm, target, weight, ignore_index, reduction, error);
}
