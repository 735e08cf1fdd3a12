/* cr-ops-loss-device.c — the losses of cr-ops-nn.c on a device tensor.
 *
 * The CPU computes them with loops over host memory; a device's memory is
 * not readable from the host, so there they are chains of kernels (which
 * dispatch to the device's backend). Where host values are genuinely needed
 * (nll_loss's targets, for the bounds check and the positions, and BCE's
 * range check) they are copied over explicitly, a synchronizing read. */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"

/* On a device the elementwise losses are chains of kernels (same formulas,
 * same order of operations as the CPU loops; the device's exp/log may differ
 * in the last bit). Each helper returns a new tensor or NULL with error. */
static CrTensor *
k_bin (CrBinaryOp op, CrTensor *a, CrTensor *b, GError **error)
{
  return a != NULL && b != NULL ? cr_kernel_binary (op, a, b, error) : NULL;
}

static CrTensor *
k_un (CrUnaryOp op, CrTensor *a, GError **error)
{
  return a != NULL ? cr_kernel_unary (op, a, error) : NULL;
}

/* max_val = max(-x, 0); (1 - y) * x + max_val + log(exp(-max_val) + exp(-x - max_val)) */
CrTensor *
cr_ops_bce_logits_device (CrTensor *x, CrTensor *y, GError **error)
{
  g_autoptr(CrTensor) nx = cr_kernel_unary (CR_UNARY_NEG, x, error);
  g_autoptr(CrTensor) max_val = nx != NULL ? cr_kernel_clamp (nx, TRUE, 0, FALSE, 0, error)
                                           : NULL;
  g_autoptr(CrTensor) one_y = max_val != NULL ? cr_ops_k_rnum (CR_BINARY_SUB, 1.0, y, error)
                                              : NULL;
  g_autoptr(CrTensor) t = k_bin (CR_BINARY_MUL, one_y, x, error);
  g_autoptr(CrTensor) a = k_bin (CR_BINARY_ADD, t, max_val, error);
  g_autoptr(CrTensor) nm = k_un (CR_UNARY_NEG, a != NULL ? max_val : NULL, error);
  g_autoptr(CrTensor) e1 = k_un (CR_UNARY_EXP, nm, error);
  g_autoptr(CrTensor) d = k_bin (CR_BINARY_SUB, e1 != NULL ? nx : NULL, max_val, error);
  g_autoptr(CrTensor) e2 = k_un (CR_UNARY_EXP, d, error);
  g_autoptr(CrTensor) sum = k_bin (CR_BINARY_ADD, e1, e2, error);
  g_autoptr(CrTensor) lg = k_un (CR_UNARY_LOG, sum, error);

  return k_bin (CR_BINARY_ADD, a, lg, error);
}

/* (y - 1) * max(log(1 - x), -100) - y * max(log(x), -100), after checking
 * 0 <= x <= 1 on the device (one synchronizing read of the verdict). */
CrTensor *
cr_ops_bce_device (CrTensor *x, CrTensor *y, gboolean *bad, GError **error)
{
  g_autoptr(CrTensor) zero = cr_ops_wrap_number (0.0, FALSE);
  g_autoptr(CrTensor) one = cr_ops_wrap_number (1.0, FALSE);
  g_autoptr(CrTensor) ge = cr_kernel_binary (CR_BINARY_GE, x, zero, error);
  g_autoptr(CrTensor) le = k_bin (CR_BINARY_LE, ge != NULL ? x : NULL, one, error);
  g_autoptr(CrTensor) in = k_bin (CR_BINARY_LOGICAL_AND, ge, le, error);
  g_autoptr(CrTensor) out = k_un (CR_UNARY_LOGICAL_NOT, in, error);
  g_autoptr(CrTensor) one_x = NULL;
  g_autoptr(CrTensor) l1 = NULL;
  g_autoptr(CrTensor) c1 = NULL;
  g_autoptr(CrTensor) l0 = NULL;
  g_autoptr(CrTensor) c0 = NULL;
  g_autoptr(CrTensor) y1 = NULL;
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;

  if (out == NULL)
    return NULL;
  if (cr_kernel_any (out))
    {
      *bad = TRUE;
      return NULL;
    }
  one_x = cr_ops_k_rnum (CR_BINARY_SUB, 1.0, x, error);
  l1 = k_un (CR_UNARY_LOG, one_x, error);
  c1 = l1 != NULL ? cr_kernel_clamp (l1, TRUE, -100, FALSE, 0, error) : NULL;
  l0 = k_un (CR_UNARY_LOG, c1 != NULL ? x : NULL, error);
  c0 = l0 != NULL ? cr_kernel_clamp (l0, TRUE, -100, FALSE, 0, error) : NULL;
  y1 = c0 != NULL ? cr_ops_k_num (CR_BINARY_SUB, y, 1.0, error) : NULL;
  a = k_bin (CR_BINARY_MUL, y1, c1, error);
  b = k_bin (CR_BINARY_MUL, a != NULL ? y : NULL, c0, error);
  return k_bin (CR_BINARY_SUB, a, b, error);
}

/* For a device: the targets are read on the host (one synchronizing copy;
 * the bounds check needs them there) and turned into positions for the
 * take / put kernels: *at the input positions (n * C + t) * R + r and
 * *sample the sample positions n * R + r of the targets not ignored, both
 * int64 on device. FALSE with an IndexError for a target out of bounds. */
static gboolean
nll_device_positions (const CrNllShape  *s,
                      const CrTensor  *target,
                      CrDeviceType     device,
                      CrTensor       **at,
                      CrTensor       **sample,
                      gint64          *count,
                      GError         **error)
{
  g_autoptr(CrTensor) host = cr_tensor_to_device (target, CR_DEVICE_CPU, error);
  g_autoptr(CrTensor) at_host = NULL;
  g_autoptr(CrTensor) sample_host = NULL;
  const gint64 *tp;
  gint64 *ap, *sp, k = 0, total = s->N * s->R;

  if (host == NULL)
    return FALSE;
  tp = (const gint64 *) cr_tensor_data (host);
  for (gint64 i = 0; i < total; i++)
    {
      if (tp[i] == CR_OPS_IGNORE_INDEX)
        continue;
      if (tp[i] < 0 || tp[i] >= s->C)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                       "Target %" G_GINT64_FORMAT " is out of bounds.", tp[i]);
          return FALSE;
        }
      k++;
    }
  *count = k;
  at_host = cr_tensor_new_empty (&k, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  sample_host = at_host != NULL ? cr_tensor_new_empty (&k, 1, CR_DTYPE_INT64, CR_DEVICE_CPU,
                                                       error) : NULL;
  if (sample_host == NULL)
    return FALSE;
  ap = cr_tensor_data (at_host);
  sp = cr_tensor_data (sample_host);
  for (gint64 n = 0; n < s->N; n++)
    for (gint64 r = 0; r < s->R; r++)
      {
        gint64 t = tp[n * s->R + r];
        if (t == CR_OPS_IGNORE_INDEX)
          continue;
        *ap++ = (n * s->C + t) * s->R + r;
        *sp++ = n * s->R + r;
      }
  *at = cr_tensor_to_device (at_host, device, error);
  *sample = *at != NULL ? cr_tensor_to_device (sample_host, device, error) : NULL;
  if (*sample == NULL)
    {
      g_clear_pointer (at, cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

/* nll_backward on a device: zeros of the input with scale * g put at the
 * targets (g per sample when unreduced); under create_graph the scaled
 * one-hot times the gradient, as on the CPU. */
CrTensor *
cr_ops_nll_backward_device (const CrTensorMeta *meta,
                     const CrNllShape     *s,
                     CrTensor           *target,
                     CrTensor           *grad,
                     CrReduction         reduction,
                     double              scale,
                     GError            **error)
{
  g_autoptr(CrTensor) at = NULL;
  g_autoptr(CrTensor) sample = NULL;
  g_autoptr(CrTensor) out = NULL;
  gint64 count;

  if (!nll_device_positions (s, target, meta->device, &at, &sample, &count, error))
    return NULL;
  out = cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, meta->device, error);
  if (out == NULL)
    return NULL;
  if (!cr_autograd_should_record (&grad, 1))
    {
      g_autoptr(CrTensor) g64 = cr_kernel_cast (grad, CR_DTYPE_FLOAT64, error);
      g_autoptr(CrTensor) g = NULL;
      g_autoptr(CrTensor) v = NULL;
      g_autoptr(CrTensor) vc = NULL;

      if (g64 == NULL)
        return NULL;
      g = reduction == CR_REDUCTION_NONE ? cr_kernel_take (g64, sample, error)
                                         : cr_tensor_ref (g64);
      v = g != NULL ? cr_ops_k_num (CR_BINARY_MUL, g, scale, error) : NULL;
      vc = v != NULL ? cr_kernel_cast (v, meta->dtype, error) : NULL;
      if (vc == NULL || !cr_kernel_put (out, at, vc, FALSE, error))
        return NULL;
      return g_steal_pointer (&out);
    }
  {
    g_autoptr(CrTensor) k = cr_tensor_new_full (at->shape, at->ndim, scale, meta->dtype,
                                                meta->device, error);
    g_autoptr(CrTensor) gc = NULL;

    if (k == NULL || !cr_kernel_put (out, at, k, FALSE, error))
      return NULL;
    if (reduction == CR_REDUCTION_NONE && meta->ndim >= 2)
      gc = cr_unsqueeze (grad, 1, error);
    else
      gc = cr_tensor_ref (grad);
    return gc != NULL ? cr_mul (out, gc, error) : NULL;
  }
}

/* nll_loss forward on a device: the log-probabilities at the targets taken
 * by a kernel; the reduced forms sum them in float64 like the CPU loop. */
CrTensor *
cr_ops_nll_forward_device (const CrNllShape *s,
                    CrTensor       *logp,
                    CrTensor       *target,
                    CrReduction     reduction,
                    gint64         *count,
                    GError        **error)
{
  g_autoptr(CrTensor) at = NULL;
  g_autoptr(CrTensor) sample = NULL;
  g_autoptr(CrTensor) v = NULL;
  g_autoptr(CrTensor) neg = NULL;

  if (!nll_device_positions (s, target, logp->device, &at, &sample, count, error))
    return NULL;
  v = cr_kernel_take (logp, at, error);
  neg = v != NULL ? cr_kernel_unary (CR_UNARY_NEG, v, error) : NULL;
  if (neg == NULL)
    return NULL;
  if (reduction == CR_REDUCTION_NONE)
    {
      g_autoptr(CrTensor) loss = cr_tensor_new_zeros (target->shape, target->ndim, logp->dtype,
                                                      logp->device, error);
      if (loss == NULL || !cr_kernel_put (loss, sample, neg, FALSE, error))
        return NULL;
      return g_steal_pointer (&loss);
    }
  {
    g_autoptr(CrTensor) n64 = cr_kernel_cast (neg, CR_DTYPE_FLOAT64, error);
    g_autoptr(CrTensor) total = n64 != NULL ? cr_kernel_sum (n64, NULL, 0, FALSE, error) : NULL;
    g_autoptr(CrTensor) value = NULL;

    if (total == NULL)
      return NULL;
    if (reduction == CR_REDUCTION_SUM)
      value = g_steal_pointer (&total);
    else if ((value = cr_ops_k_num (CR_BINARY_DIV, total, (double) *count, error)) == NULL)
      return NULL;
    return cr_kernel_cast (value, logp->dtype, error);
  }
}
