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
#include "cr-grad-mode.h"

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

/* t expanded to like's shape (outside the graph) and cast to dtype. */
static CrTensor *
expanded_as (CrTensor *t, const CrTensor *like, CrDType dtype, GError **error)
{
  g_autoptr(CrTensor) e = NULL;
  gboolean grad_was_enabled;

  if (t == NULL)
    return NULL;
  grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
  e = cr_expand (t, like->shape, like->ndim, error);
  cr_grad_mode_set_enabled (grad_was_enabled);
  return e != NULL ? cr_kernel_cast (e, dtype, error) : NULL;
}

/* With weight w and pos_weight pw (either may be NULL; PyTorch's order of
 * operations): m = max(-x, 0), lw = (pw - 1) y + 1,
 * loss = ((1 - y) x + lw (log(e^-m + e^(-x-m)) + m)) w
 * (without pw: (1 - y) x + m + log(...)). */
CrTensor *
cr_ops_bce_logits_weighted_device (CrTensor *input, CrTensor *target, CrTensor *weight,
                                   CrTensor *pos_weight, CrDType dtype, GError **error)
{
  g_autoptr(CrTensor) x = expanded_as (input, input, dtype, error);
  g_autoptr(CrTensor) y = x != NULL ? expanded_as (target, input, dtype, error) : NULL;
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) pw = NULL;
  g_autoptr(CrTensor) nx = NULL;
  g_autoptr(CrTensor) m = NULL;
  g_autoptr(CrTensor) one_y = NULL;
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) nm = NULL;
  g_autoptr(CrTensor) e1 = NULL;
  g_autoptr(CrTensor) d = NULL;
  g_autoptr(CrTensor) e2 = NULL;
  g_autoptr(CrTensor) lg = NULL;
  g_autoptr(CrTensor) l = NULL;

  if (y == NULL || (weight != NULL && (w = expanded_as (weight, input, dtype, error)) == NULL)
      || (pos_weight != NULL && (pw = expanded_as (pos_weight, input, dtype, error)) == NULL))
    return NULL;
  nx = cr_kernel_unary (CR_UNARY_NEG, x, error);
  m = nx != NULL ? cr_kernel_clamp (nx, TRUE, 0, FALSE, 0, error) : NULL;
  one_y = m != NULL ? cr_ops_k_rnum (CR_BINARY_SUB, 1.0, y, error) : NULL;
  a = k_bin (CR_BINARY_MUL, one_y, x, error);
  nm = k_un (CR_UNARY_NEG, a != NULL ? m : NULL, error);
  e1 = k_un (CR_UNARY_EXP, nm, error);
  d = k_bin (CR_BINARY_SUB, e1 != NULL ? nx : NULL, m, error);
  e2 = k_un (CR_UNARY_EXP, d, error);
  {
    g_autoptr(CrTensor) sum = k_bin (CR_BINARY_ADD, e1, e2, error);
    lg = k_un (CR_UNARY_LOG, sum, error);
  }
  if (lg == NULL)
    return NULL;
  if (pw != NULL)
    {
      /* (1 - y) x + lw (lg + m) */
      g_autoptr(CrTensor) pw1 = cr_ops_k_num (CR_BINARY_SUB, pw, 1.0, error);
      g_autoptr(CrTensor) t = k_bin (CR_BINARY_MUL, pw1, y, error);
      g_autoptr(CrTensor) lw = t != NULL ? cr_ops_k_num (CR_BINARY_ADD, t, 1.0, error) : NULL;
      g_autoptr(CrTensor) lgm = k_bin (CR_BINARY_ADD, lw != NULL ? lg : NULL, m, error);
      g_autoptr(CrTensor) prod = k_bin (CR_BINARY_MUL, lw, lgm, error);

      l = k_bin (CR_BINARY_ADD, a, prod, error);
    }
  else
    {
      /* (1 - y) x + m + lg */
      g_autoptr(CrTensor) am = k_bin (CR_BINARY_ADD, a, m, error);

      l = k_bin (CR_BINARY_ADD, am, lg, error);
    }
  if (l == NULL || w == NULL)
    return g_steal_pointer (&l);
  return k_bin (CR_BINARY_MUL, l, w, error);
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
 * take / put kernels: *at the input positions (n * C + t) * R + r,
 * *sample the sample positions n * R + r and *classes the targets t of the
 * targets not ignored, all int64 on device. FALSE with an IndexError for a
 * target out of bounds. */
static gboolean
nll_device_positions (const CrNllShape  *s,
                      const CrTensor    *target,
                      gint64             ignore_index,
                      CrDeviceType       device,
                      CrTensor         **at,
                      CrTensor         **sample,
                      CrTensor         **classes,
                      gint64            *count,
                      GError           **error)
{
  g_autoptr(CrTensor) host = cr_tensor_to_device (target, CR_DEVICE_CPU, error);
  g_autoptr(CrTensor) hc = host != NULL ? cr_tensor_contiguous (host, error) : NULL;
  g_autoptr(CrTensor) at_host = NULL;
  g_autoptr(CrTensor) sample_host = NULL;
  g_autoptr(CrTensor) class_host = NULL;
  const gint64 *tp;
  gint64 *ap, *sp, *cp, k = 0, total = s->N * s->R;

  if (hc == NULL)
    return FALSE;
  tp = (const gint64 *) cr_tensor_data (hc);
  for (gint64 i = 0; i < total; i++)
    {
      if (tp[i] == ignore_index)
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
  class_host = sample_host != NULL ? cr_tensor_new_empty (&k, 1, CR_DTYPE_INT64, CR_DEVICE_CPU,
                                                          error) : NULL;
  if (class_host == NULL)
    return FALSE;
  ap = cr_tensor_data (at_host);
  sp = cr_tensor_data (sample_host);
  cp = cr_tensor_data (class_host);
  for (gint64 n = 0; n < s->N; n++)
    for (gint64 r = 0; r < s->R; r++)
      {
        gint64 t = tp[n * s->R + r];
        if (t == ignore_index)
          continue;
        *ap++ = (n * s->C + t) * s->R + r;
        *sp++ = n * s->R + r;
        *cp++ = t;
      }
  *at = cr_tensor_to_device (at_host, device, error);
  *sample = *at != NULL ? cr_tensor_to_device (sample_host, device, error) : NULL;
  *classes = *sample != NULL ? cr_tensor_to_device (class_host, device, error) : NULL;
  if (*classes == NULL)
    {
      g_clear_pointer (at, cr_tensor_unref);
      g_clear_pointer (sample, cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

/* The class weights of the targets not ignored (float64, device), or NULL
 * (and no error) without weights. */
static CrTensor *
target_weights (CrTensor *weight, CrTensor *classes, gboolean *failed, GError **error)
{
  g_autoptr(CrTensor) w64 = NULL;
  CrTensor *wt;

  *failed = FALSE;
  if (weight == NULL)
    return NULL;
  w64 = cr_kernel_cast (weight, CR_DTYPE_FLOAT64, error);
  wt = w64 != NULL ? cr_kernel_take (w64, classes, error) : NULL;
  *failed = wt == NULL;
  return wt;
}

/* nll_backward on a device: zeros of the input with scale * g (times the
 * target's class weight) put at the targets (g per sample when
 * unreduced); under create_graph the scaled (weighted) one-hot times the
 * gradient, as on the CPU. */
CrTensor *
cr_ops_nll_backward_device (const CrTensorMeta *meta,
                            const CrNllShape   *s,
                            CrTensor           *target,
                            CrTensor           *weight,
                            gint64              ignore_index,
                            CrTensor           *grad,
                            CrReduction         reduction,
                            double              scale,
                            GError            **error)
{
  g_autoptr(CrTensor) at = NULL;
  g_autoptr(CrTensor) sample = NULL;
  g_autoptr(CrTensor) classes = NULL;
  g_autoptr(CrTensor) wt = NULL;
  g_autoptr(CrTensor) out = NULL;
  gboolean failed;
  gint64 count;

  if (!nll_device_positions (s, target, ignore_index, meta->device, &at, &sample, &classes,
                             &count, error))
    return NULL;
  wt = target_weights (weight, classes, &failed, error);
  if (failed)
    return NULL;
  out = cr_tensor_new_zeros (meta->shape, meta->ndim, meta->dtype, meta->device, error);
  if (out == NULL)
    return NULL;
  if (!cr_autograd_should_record (&grad, 1))
    {
      g_autoptr(CrTensor) g64 = cr_kernel_cast (grad, CR_DTYPE_FLOAT64, error);
      g_autoptr(CrTensor) g = NULL;
      g_autoptr(CrTensor) v = NULL;
      g_autoptr(CrTensor) vw = NULL;
      g_autoptr(CrTensor) vc = NULL;

      if (g64 == NULL)
        return NULL;
      g = reduction == CR_REDUCTION_NONE ? cr_kernel_take (g64, sample, error)
                                         : cr_tensor_ref (g64);
      /* g * w first, as the CPU loop. */
      vw = wt != NULL ? k_bin (CR_BINARY_MUL, g, wt, error) : g != NULL ? cr_tensor_ref (g) : NULL;
      v = vw != NULL ? cr_ops_k_num (CR_BINARY_MUL, vw, scale, error) : NULL;
      vc = v != NULL ? cr_kernel_cast (v, meta->dtype, error) : NULL;
      if (vc == NULL || !cr_kernel_put (out, at, vc, FALSE, error))
        return NULL;
      return g_steal_pointer (&out);
    }
  {
    g_autoptr(CrTensor) k = NULL;
    g_autoptr(CrTensor) gc = NULL;

    if (wt != NULL)
      {
        g_autoptr(CrTensor) ks = cr_ops_k_num (CR_BINARY_MUL, wt, scale, error);
        k = ks != NULL ? cr_kernel_cast (ks, meta->dtype, error) : NULL;
      }
    else
      k = cr_tensor_new_full (at->shape, at->ndim, scale, meta->dtype, meta->device, error);
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
 * by a kernel (times the targets' class weights); the reduced forms sum
 * them in float64 like the CPU loop. *divisor: what the mean divides by,
 * the number of targets not ignored or their total weight (read back to
 * the host: the backward keeps it). */
CrTensor *
cr_ops_nll_forward_device (const CrNllShape *s,
                           CrTensor         *logp,
                           CrTensor         *target,
                           CrTensor         *weight,
                           gint64            ignore_index,
                           CrReduction       reduction,
                           gint64           *count,
                           double           *divisor,
                           GError          **error)
{
  g_autoptr(CrTensor) at = NULL;
  g_autoptr(CrTensor) sample = NULL;
  g_autoptr(CrTensor) classes = NULL;
  g_autoptr(CrTensor) wt = NULL;
  g_autoptr(CrTensor) v = NULL;
  g_autoptr(CrTensor) vw = NULL;
  g_autoptr(CrTensor) neg = NULL;
  gboolean failed;

  if (!nll_device_positions (s, target, ignore_index, logp->device, &at, &sample, &classes,
                             count, error))
    return NULL;
  wt = target_weights (weight, classes, &failed, error);
  if (failed)
    return NULL;
  *divisor = (double) *count;
  v = cr_kernel_take (logp, at, error);
  if (v != NULL && wt != NULL)
    {
      g_autoptr(CrTensor) wc = cr_kernel_cast (wt, logp->dtype, error);
      vw = k_bin (CR_BINARY_MUL, v, wc, error);
    }
  else if (v != NULL)
    vw = cr_tensor_ref (v);
  neg = vw != NULL ? cr_kernel_unary (CR_UNARY_NEG, vw, error) : NULL;
  if (neg == NULL)
    return NULL;
  if (wt != NULL && reduction == CR_REDUCTION_MEAN)
    {
      g_autoptr(CrTensor) wsum = cr_kernel_sum (wt, NULL, 0, FALSE, error);

      if (wsum == NULL)
        return NULL;
      *divisor = cr_tensor_read_flat (wsum, 0);
      if (logp->dtype == CR_DTYPE_FLOAT32)
        *divisor = (float) *divisor;
    }
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
    else if ((value = cr_ops_k_num (CR_BINARY_DIV, total, *divisor, error)) == NULL)
      return NULL;
    return cr_kernel_cast (value, logp->dtype, error);
  }
}
