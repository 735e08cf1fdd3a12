/* cr-cpu-softmax.c — softmax and log_softmax along a dim, and their backward.
 *
 * The input is seen as a contiguous (outer, dim, inner) block. inner == 1 (the
 * last dim, the common case) works on contiguous rows; inner > 1 runs the same
 * steps across the inner positions at once so that the loops still vectorise.
 * The arithmetic follows PyTorch's kernels: exp(x - max), multiplied by
 * 1/sum; log_softmax is x - (max + log(sum)). */
#include "cr-cpu-private.h"
#include "cr-cpu-vecmath.h"
#include "cr-cpu-torch-math.h"

#include <math.h>
#include <string.h>

CR_VEC_CLONES void
cr_cpu_vexp_f32 (gint64       n,
                 float       *out,
                 const float *x,
                 float        shift)
{
  for (gint64 i = 0; i < n; i++)
    out[i] = cr_vexpf (x[i] - shift);
}

CR_VEC_CLONES void
cr_cpu_vexp_f64 (gint64        n,
                 double       *out,
                 const double *x,
                 double        shift)
{
  for (gint64 i = 0; i < n; i++)
    out[i] = cr_vexp (x[i] - shift);
}

typedef struct {
  gint64   outer;
  gint64   dim;
  gint64   inner;
  gboolean log;
  const void *x;        /* forward: input; backward: grad */
  const void *y;        /* backward: the forward output */
  void       *out;
} SoftmaxJob;

/* One (o) slab of dim * inner elements. T is float or double; sums in double. */
#define DEFINE_SOFTMAX(name, T, VEXP, EXP, LOG)                                \
  static void                                                                  \
  name (gint64   begin,                                                        \
        gint64   end,                                                          \
        gpointer data)                                                         \
  {                                                                            \
    SoftmaxJob *job = data;                                                    \
    gint64 D = job->dim, I = job->inner;                                       \
                                                                               \
    for (gint64 o = begin; o < end; o++)                                       \
      {                                                                        \
        const T *x = (const T *) job->x + o * D * I;                           \
        T *y = (T *) job->out + o * D * I;                                     \
                                                                               \
        for (gint64 i = 0; i < I; i++)                                         \
          {                                                                    \
            T max = x[i];                                                      \
            double sum = 0;                                                    \
                                                                               \
            for (gint64 d = 1; d < D; d++)                                     \
              {                                                                \
                T v = x[d * I + i];                                            \
                max = (v > max || v != v) ? v : max;                           \
              }                                                                \
            if (I == 1)                                                        \
              {                                                                \
                VEXP (D, y, x, max);                                           \
                for (gint64 d = 0; d < D; d++)                                 \
                  sum += y[d];                                                 \
              }                                                                \
            else                                                               \
              for (gint64 d = 0; d < D; d++)                                   \
                {                                                              \
                  y[d * I + i] = EXP (x[d * I + i] - max);                     \
                  sum += y[d * I + i];                                         \
                }                                                              \
            if (job->log)                                                      \
              {                                                                \
                T shift = max + (T) LOG ((T) sum);                             \
                for (gint64 d = 0; d < D; d++)                                 \
                  y[d * I + i] = x[d * I + i] - shift;                         \
              }                                                                \
            else                                                               \
              {                                                                \
                T inv = (T) 1 / (T) sum;                                       \
                for (gint64 d = 0; d < D; d++)                                 \
                  y[d * I + i] *= inv;                                         \
              }                                                                \
          }                                                                    \
      }                                                                        \
  }

DEFINE_SOFTMAX (softmax_f, float, cr_cpu_vexp_f32, cr_vexpf, logf)
DEFINE_SOFTMAX (softmax_d, double, cr_cpu_vexp_f64, cr_vexp, log)

/* ---- float32 along the last dim, bit for bit with PyTorch 1.13 --------- */

/* The sum of v[0..n) as PyTorch's vec::reduce_all (AVX2) adds it: eight lane
 * accumulators, a partial last vector into the first lanes only, then lanes
 * k + 4, k + 2, k + 1 folded; fewer than eight values in order. */
static float
torch_lane_sum (const float *v,
                gint64       n)
{
  float acc[8], w0, w1, w2, w3;
  gint64 d;

  if (n < 8)
    {
      float s = v[0];

      for (gint64 i = 1; i < n; i++)
        s += v[i];
      return s;
    }
  memcpy (acc, v, sizeof acc);
  for (d = 8; d < n - n % 8; d += 8)
    for (int k = 0; k < 8; k++)
      acc[k] += v[d + k];
  for (int k = 0; d + k < n; k++)
    acc[k] += v[d + k];
  w0 = acc[0] + acc[4];
  w1 = acc[1] + acc[5];
  w2 = acc[2] + acc[6];
  w3 = acc[3] + acc[7];
  return (w0 + w2) + (w1 + w3);
}

/* The sum of a[i] * b[i] as vec::map2_reduce_all: like torch_lane_sum, the
 * products past the first vector fused into the lane accumulators. */
static float
torch_lane_dot (const float *a,
                const float *b,
                gint64       n)
{
  float acc[8], w0, w1, w2, w3;
  gint64 d;

  if (n < 8)
    {
      float s = a[0] * b[0];

      for (gint64 i = 1; i < n; i++)
        s += a[i] * b[i];
      return s;
    }
  for (int k = 0; k < 8; k++)
    acc[k] = a[k] * b[k];
  for (d = 8; d < n - n % 8; d += 8)
    for (int k = 0; k < 8; k++)
      acc[k] = fmaf (a[d + k], b[d + k], acc[k]);
  for (int k = 0; d + k < n; k++)
    acc[k] = fmaf (a[d + k], b[d + k], acc[k]);
  w0 = acc[0] + acc[4];
  w1 = acc[1] + acc[5];
  w2 = acc[2] + acc[6];
  w3 = acc[3] + acc[7];
  return (w0 + w2) + (w1 + w3);
}

/* _vec_softmax_lastdim / _vec_log_softmax_lastdim: SLEEF's exp and log, the
 * sums in float in the lane order above, x - max - log(sum) in that order. */
static void
softmax_lastdim_f (gint64   begin,
                   gint64   end,
                   gpointer data)
{
  SoftmaxJob *job = data;
  gint64 D = job->dim;

  for (gint64 o = begin; o < end; o++)
    {
      const float *x = (const float *) job->x + o * D;
      float *y = (float *) job->out + o * D;
      float max = x[0], sum;

      for (gint64 d = 1; d < D; d++)
        max = (x[d] > max || x[d] != x[d]) ? x[d] : max;
      for (gint64 d = 0; d < D; d++)
        y[d] = cr_torch_expf (x[d] - max);
      sum = torch_lane_sum (y, D);
      if (job->log)
        {
          float log_sum = cr_torch_logf (sum);

          for (gint64 d = 0; d < D; d++)
            y[d] = (x[d] - max) - log_sum;
        }
      else
        {
          float inv = 1.0f / sum;

          for (gint64 d = 0; d < D; d++)
            y[d] *= inv;
        }
    }
}

/* _vec_host_softmax_backward_lastdim: log_softmax gi = g - exp(y) * sum(g),
 * softmax gi = (g - sum(g * y)) * y, the sums as torch_lane_sum. */
static void
softmax_backward_lastdim_f (gint64   begin,
                            gint64   end,
                            gpointer data)
{
  SoftmaxJob *job = data;
  gint64 D = job->dim;

  for (gint64 o = begin; o < end; o++)
    {
      const float *g = (const float *) job->x + o * D;
      const float *y = (const float *) job->y + o * D;
      float *gi = (float *) job->out + o * D;
      float sum;

      if (job->log)
        {
          sum = torch_lane_sum (g, D);
          for (gint64 d = 0; d < D; d++)
            gi[d] = fmaf (-cr_torch_expf (y[d]), sum, g[d]);
        }
      else
        {
          sum = torch_lane_dot (g, y, D);
          for (gint64 d = 0; d < D; d++)
            gi[d] = (g[d] - sum) * y[d];
        }
    }
}

/* softmax:     gi = y * (g - sum(g * y))
 * log_softmax: gi = g - exp(y) * sum(g) */
#define DEFINE_SOFTMAX_BACKWARD(name, T, EXP)                                  \
  static void                                                                  \
  name (gint64   begin,                                                        \
        gint64   end,                                                          \
        gpointer data)                                                         \
  {                                                                            \
    SoftmaxJob *job = data;                                                    \
    gint64 D = job->dim, I = job->inner;                                       \
                                                                               \
    for (gint64 o = begin; o < end; o++)                                       \
      {                                                                        \
        const T *g = (const T *) job->x + o * D * I;                           \
        const T *y = (const T *) job->y + o * D * I;                           \
        T *gi = (T *) job->out + o * D * I;                                    \
                                                                               \
        for (gint64 i = 0; i < I; i++)                                         \
          {                                                                    \
            double sum = 0;                                                    \
            T s;                                                               \
                                                                               \
            if (job->log)                                                      \
              {                                                                \
                for (gint64 d = 0; d < D; d++)                                 \
                  sum += g[d * I + i];                                         \
                s = (T) sum;                                                   \
                for (gint64 d = 0; d < D; d++)                                 \
                  gi[d * I + i] = g[d * I + i] - EXP (y[d * I + i]) * s;       \
              }                                                                \
            else                                                               \
              {                                                                \
                for (gint64 d = 0; d < D; d++)                                 \
                  sum += (double) (g[d * I + i] * y[d * I + i]);               \
                s = (T) sum;                                                   \
                for (gint64 d = 0; d < D; d++)                                 \
                  gi[d * I + i] = y[d * I + i] * (g[d * I + i] - s);           \
              }                                                                \
          }                                                                    \
      }                                                                        \
  }

DEFINE_SOFTMAX_BACKWARD (softmax_backward_f, float, cr_vexpf)
DEFINE_SOFTMAX_BACKWARD (softmax_backward_d, double, cr_vexp)

/* Resolves dim and the (outer, dim, inner) sizes; checks the dtype. */
static gboolean
softmax_geometry (const CrTensor  *x,
                  int              dim,
                  gboolean         log,
                  SoftmaxJob      *job,
                  GError         **error)
{
  int d;

  if (!cr_cpu_wrap_dim (dim, x->ndim, &d, error))
    return FALSE;
  if (!cr_dtype_is_floating (x->dtype))
    {
      gboolean last = x->ndim == 0 || d == x->ndim - 1;

      /* PyTorch names only the last-dim kernels after log_softmax. */
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"%s_kernel_impl\" not implemented for '%s'",
                   !last ? "softmax" : log ? "log_softmax_lastdim" : "softmax_lastdim",
                   cr_dtype_scalar_name (x->dtype));
      return FALSE;
    }
  job->outer = 1;
  job->inner = 1;
  job->dim = x->ndim > 0 ? x->shape[d] : 1;
  for (int i = 0; i < d && i < x->ndim; i++)
    job->outer *= x->shape[i];
  for (int i = d + 1; i < x->ndim; i++)
    job->inner *= x->shape[i];
  job->log = log;
  return TRUE;
}

static void
softmax_run (SoftmaxJob  *job,
             CrDType      dtype,
             gboolean     backward)
{
  gint64 per_slab = MAX (1, job->dim * job->inner);
  void (*fn) (gint64, gint64, gpointer);

  if (dtype == CR_DTYPE_FLOAT32 && job->inner == 1)
    fn = backward ? softmax_backward_lastdim_f : softmax_lastdim_f;
  else if (dtype == CR_DTYPE_FLOAT32)
    fn = backward ? softmax_backward_f : softmax_f;
  else
    fn = backward ? softmax_backward_d : softmax_d;
  if (job->dim == 0)
    return;
  cr_parallel_for (job->outer, MAX (1, CR_PARALLEL_GRAIN / per_slab), fn, job);
}

CrTensor *
cr_kernel_softmax (const CrTensor  *x,
                   int              dim,
                   gboolean         log,
                   GError         **error)
{
  g_autoptr(CrTensor) xc = NULL;
  SoftmaxJob job;
  CrTensor *out;

  CR_DISPATCH (x->device, softmax, error, NULL, x, dim, log, error);
  if (!softmax_geometry (x, dim, log, &job, error))
    return NULL;
  xc = cr_tensor_contiguous ((CrTensor *) x, error);
  if (xc == NULL)
    return NULL;
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  job.x = cr_tensor_data (xc);
  job.y = NULL;
  job.out = cr_tensor_data (out);
  softmax_run (&job, x->dtype, FALSE);
  return out;
}

CrTensor *
cr_kernel_softmax_backward (const CrTensor *grad,
                            const CrTensor *output,
                            int             dim,
                            gboolean        log,
                            GError        **error)
{
  g_autoptr(CrTensor) gc = NULL;
  g_autoptr(CrTensor) yc = NULL;
  SoftmaxJob job;
  CrTensor *out;

  CR_DISPATCH (cr_cpu_device2 (grad, output), softmax_backward, error, NULL, grad, output, dim, log, error);
  if (!cr_shape_equal (grad->shape, grad->ndim, output->shape, output->ndim))
    {
      g_autofree char *s1 = cr_shape_to_string (grad->shape, grad->ndim);
      g_autofree char *s2 = cr_shape_to_string (output->shape, output->ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "softmax backward: grad of shape %s does not match the output's %s", s1, s2);
      return NULL;
    }
  if (!softmax_geometry (output, dim, log, &job, error))
    return NULL;
  /* Both in the output's dtype, contiguous. */
  gc = grad->dtype == output->dtype ? cr_tensor_contiguous ((CrTensor *) grad, error)
                                    : cr_cpu_cast (grad, output->dtype, error);
  yc = gc != NULL ? cr_tensor_contiguous ((CrTensor *) output, error) : NULL;
  if (yc == NULL)
    return NULL;
  out = cr_tensor_new_empty (output->shape, output->ndim, output->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  job.x = cr_tensor_data (gc);
  job.y = cr_tensor_data (yc);
  job.out = cr_tensor_data (out);
  softmax_run (&job, output->dtype, TRUE);
  return out;
}
