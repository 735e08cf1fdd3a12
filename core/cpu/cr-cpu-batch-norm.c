/* cr-cpu-batch-norm.c — batch norm's loops as PyTorch 1.13's CPU kernel
 * (aten/src/ATen/native/cpu/batch_norm_kernel.cpp, AVX2 build) runs them.
 *
 * Why not composed ops: PyTorch sums a channel's values in double while
 * its float mean and products are rounded as floats, folds x·α + β into one
 * fused multiply-add, and reduces each (n, c) plane of the backward in
 * eight float lanes before adding the planes in double. Summing otherwise
 * moved weight gradients by about 1e-7 relative, which Adam turned into a
 * printed loss 6e-4 off within four epochs.
 *
 * Two layouts, as PyTorch's: planes of more than one element ("contiguous":
 * per channel, planes in order), and (N, C) or (N, C, 1, ...) inputs
 * ("channels last": running float sums over the rows, one thread's buffer).
 * The fmaf/fma calls stand where PyTorch's compiler fused a multiply and an
 * add; every other operation rounds as it does (this file is built without
 * FMA contraction: the plain x86-64 target has no FMA instruction). */
#include "cr-cpu-private.h"
#include "cr-cpu-batch-norm.h"

#include <math.h>

gboolean
cr_cpu_batch_norm_supported (const CrTensor        *x,
                             const CrTensor *const *per_channel,
                             guint                  n_per_channel)
{
  if (x->device != CR_DEVICE_CPU || x->ndim < 2 || x->numel == 0
      || (x->dtype != CR_DTYPE_FLOAT32 && x->dtype != CR_DTYPE_FLOAT64))
    return FALSE;
  for (guint i = 0; i < n_per_channel; i++)
    {
      const CrTensor *t = per_channel[i];
      if (t != NULL && (t->device != CR_DEVICE_CPU || t->dtype != x->dtype || t->ndim != 1
                        || t->shape[0] != x->shape[1]))
        return FALSE;
    }
  return TRUE;
}

/* x's elements in row-major order (a new ref: x itself when contiguous). */
static CrTensor *
dense (const CrTensor  *x,
       GError         **error)
{
  return cr_tensor_contiguous ((CrTensor *) x, error);
}

static CrTensor *
per_channel_new (const CrTensor  *x,
                 GError         **error)
{
  gint64 c = x->shape[1];
  return cr_tensor_new_empty (&c, 1, x->dtype, CR_DEVICE_CPU, error);
}

/* The horizontal sum of an accumulator vector: AVX2's float shuffles
 * (halves, then pairs, then neighbours); double has no such
 * specialisation and sums its four lanes in order. */
static inline float
lanes_sum_f32 (const float *a)
{
  return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
}

static inline double
lanes_sum_f64 (const double *a)
{
  return ((a[0] + a[1]) + a[2]) + a[3];
}

/* vec::reduce_all over n values as PyTorch's vectorised loop runs it:
 * fewer than LANES in order; else LANES running sums, the last partial
 * vector added lane by lane, then the lanes' horizontal sum. TERM (i): the
 * value i; ADD (FMA, acc, i): acc with value i added, fused where
 * PyTorch's is. Returns from the function it stands in. */
#define LANE_REDUCE(S, T, LANES, FMA, n, TERM, ADD)                             \
  do                                                                            \
    {                                                                           \
      T acc_[LANES];                                                            \
      gint64 d_;                                                                \
      if ((n) < LANES)                                                          \
        {                                                                       \
          T s_ = TERM (0);                                                      \
          for (gint64 i_ = 1; i_ < (n); i_++)                                   \
            s_ = s_ + TERM (i_);                                                \
          return s_;                                                            \
        }                                                                       \
      for (int j_ = 0; j_ < LANES; j_++)                                        \
        acc_[j_] = TERM (j_);                                                   \
      for (d_ = LANES; d_ < (n) - (n) % LANES; d_ += LANES)                     \
        for (int j_ = 0; j_ < LANES; j_++)                                      \
          acc_[j_] = ADD (FMA, acc_[j_], d_ + j_);                              \
      for (int j_ = 0; j_ < (n) - d_; j_++)                                     \
        acc_[j_] = ADD (FMA, acc_[j_], d_ + j_);                                \
      return lanes_sum_##S (acc_);                                              \
    }                                                                           \
  while (0)

/* The sum's values p[i], added plainly. */
#define SUM_TERM(i) p[i]
#define SUM_ADD(FMA, acc, i) ((acc) + p[i])
/* The dot's (x[i] − mean)·dy[i], fused into the running sums. */
#define DOT_TERM(i) ((x[i] - mean) * dy[i])
#define DOT_ADD(FMA, acc, i) FMA (x[i] - mean, dy[i], acc)

/* DEFINE_BATCH_NORM (suffix, T, LANES, FMA): the loops for one dtype. The
 * sums named "acc" are in double, as PyTorch's acc_type. */
#define DEFINE_BATCH_NORM(S, T, LANES, FMA)                                     \
  /* vec::reduce_all(+) over n values */                                        \
  static T                                                                      \
  reduce_sum_##S (const T *p,                                                   \
                  gint64   n)                                                   \
  {                                                                             \
    LANE_REDUCE (S, T, LANES, FMA, n, SUM_TERM, SUM_ADD);                       \
  }                                                                             \
                                                                                \
  /* vec::map2_reduce_all((x − mean)·dy, +) over n values */                    \
  static T                                                                      \
  reduce_dot_##S (const T *x,                                                   \
                  const T *dy,                                                  \
                  T        mean,                                                \
                  gint64   n)                                                   \
  {                                                                             \
    LANE_REDUCE (S, T, LANES, FMA, n, DOT_TERM, DOT_ADD);                       \
  }                                                                             \
                                                                                \
  static void                                                                   \
  stats_##S (const T *x,                                                        \
             gint64   batch,                                                    \
             gint64   channels,                                                 \
             gint64   plane,                                                    \
             double   eps,                                                      \
             T       *mean,                                                     \
             T       *invstd,                                                   \
             T       *var_sum)                                                  \
  {                                                                             \
    gint64 count = batch * plane;                                               \
    if (plane > 1)                                                              \
      for (gint64 c = 0; c < channels; c++)                                     \
        {                                                                       \
          double acc = 0, acc_var = 0;                                          \
          for (gint64 n = 0; n < batch; n++)                                    \
            for (gint64 i = 0; i < plane; i++)                                  \
              acc += x[(n * channels + c) * plane + i];                         \
          mean[c] = (T) (acc / count);                                          \
          for (gint64 n = 0; n < batch; n++)                                    \
            for (gint64 i = 0; i < plane; i++)                                  \
              {                                                                 \
                T dev = x[(n * channels + c) * plane + i] - mean[c];            \
                acc_var += (T) (dev * dev);                                     \
              }                                                                 \
          var_sum[c] = (T) acc_var;                                             \
        }                                                                       \
    else                                                                        \
      {                                                                         \
        /* One float row of running sums, then each channel's in double. */     \
        for (gint64 c = 0; c < channels; c++)                                   \
          var_sum[c] = 0;                                                       \
        for (gint64 c = 0; c < channels; c++)                                   \
          mean[c] = 0;                                                          \
        for (gint64 r = 0; r < count; r++)                                      \
          for (gint64 c = 0; c < channels; c++)                                 \
            mean[c] = mean[c] + x[r * channels + c];                            \
        for (gint64 c = 0; c < channels; c++)                                   \
          mean[c] = (T) ((double) mean[c] / count);                             \
        for (gint64 r = 0; r < count; r++)                                      \
          for (gint64 c = 0; c < channels; c++)                                 \
            {                                                                   \
              T dev = x[r * channels + c] - mean[c];                            \
              var_sum[c] = FMA (dev, dev, var_sum[c]);                          \
            }                                                                   \
      }                                                                         \
    for (gint64 c = 0; c < channels; c++)                                       \
      invstd[c] = (T) (1.0 / sqrt ((double) (var_sum[c] / (T) count) + eps));   \
  }                                                                             \
                                                                                \
  static void                                                                   \
  apply_##S (const T *x,                                                        \
             gint64   batch,                                                    \
             gint64   channels,                                                 \
             gint64   plane,                                                    \
             const T *mean,                                                     \
             const T *invstd,                                                   \
             const T *weight,                                                   \
             const T *bias,                                                     \
             T       *out)                                                      \
  {                                                                             \
    for (gint64 c = 0; c < channels; c++)                                       \
      {                                                                         \
        T alpha = invstd[c] * (weight != NULL ? weight[c] : (T) 1);             \
        T beta = FMA (-mean[c], alpha, bias != NULL ? bias[c] : (T) 0);         \
        for (gint64 n = 0; n < batch; n++)                                      \
          {                                                                     \
            gint64 at = (n * channels + c) * plane;                             \
            for (gint64 i = 0; i < plane; i++)                                  \
              out[at + i] = FMA (x[at + i], alpha, beta);                       \
          }                                                                     \
      }                                                                         \
  }                                                                             \
                                                                                \
  /* gx for one channel's values at x[at + i·step], i < len. */                 \
  static void                                                                   \
  grad_input_##S (const T *x,                                                   \
                  const T *dy,                                                  \
                  T       *dx,                                                  \
                  gint64   at,                                                  \
                  gint64   len,                                                 \
                  gint64   step,                                                \
                  gboolean train,                                               \
                  T        mean,                                                \
                  T        k,                                                   \
                  T        grad_mean,                                           \
                  T        invstd,                                              \
                  T        w)                                                   \
  {                                                                             \
    for (gint64 i = 0; i < len; i++)                                            \
      {                                                                         \
        gint64 e = at + i * step;                                               \
        if (train)                                                              \
          dx[e] = FMA (-(x[e] - mean), k, dy[e] - grad_mean) * invstd * w;      \
        else                                                                    \
          dx[e] = dy[e] * invstd * w;                                           \
      }                                                                         \
  }                                                                             \
                                                                                \
  static void                                                                   \
  backward_##S (const T *dy,                                                    \
                const T *x,                                                     \
                gint64   batch,                                                 \
                gint64   channels,                                              \
                gint64   plane,                                                 \
                const T *weight,                                                \
                const T *mean,                                                  \
                const T *invstd,                                                \
                gboolean train,                                                 \
                T       *dx,                                                    \
                T       *dw,                                                    \
                T       *db)                                                    \
  {                                                                             \
    gint64 count = batch * plane;                                               \
    if (plane > 1)                                                              \
      for (gint64 c = 0; c < channels; c++)                                     \
        {                                                                       \
          T w = weight != NULL ? weight[c] : (T) 1;                             \
          double acc_sum = 0, acc_dot = 0;                                      \
          for (gint64 n = 0; n < batch; n++)                                    \
            {                                                                   \
              gint64 at = (n * channels + c) * plane;                           \
              acc_sum += reduce_sum_##S (dy + at, plane);                       \
              acc_dot += reduce_dot_##S (x + at, dy + at, mean[c], plane);      \
            }                                                                   \
          if (dx != NULL)                                                       \
            {                                                                   \
              T k = (T) acc_dot * invstd[c] * invstd[c] / (T) count;            \
              T grad_mean = (T) (acc_sum / count);                              \
              for (gint64 n = 0; n < batch; n++)                                \
                grad_input_##S (x, dy, dx, (n * channels + c) * plane, plane,   \
                                1, train, mean[c], k, grad_mean, invstd[c], w); \
            }                                                                   \
          if (dw != NULL)                                                       \
            dw[c] = (T) (acc_dot * invstd[c]);                                  \
          if (db != NULL)                                                       \
            db[c] = (T) acc_sum;                                                \
        }                                                                       \
    else                                                                        \
      {                                                                         \
        /* Running float sums over the rows (one thread's buffer). */           \
        T *sum = g_new0 (T, channels), *dot = g_new0 (T, channels);             \
        for (gint64 r = 0; r < count; r++)                                      \
          for (gint64 c = 0; c < channels; c++)                                 \
            {                                                                   \
              gint64 e = r * channels + c;                                      \
              sum[c] = sum[c] + dy[e];                                          \
              dot[c] = FMA (x[e] - mean[c], dy[e], dot[c]);                     \
            }                                                                   \
        for (gint64 c = 0; c < channels; c++)                                   \
          {                                                                     \
            T w = weight != NULL ? weight[c] : (T) 1;                           \
            if (dx != NULL)                                                     \
              {                                                                 \
                T k = dot[c] * invstd[c] * invstd[c] / (T) count;               \
                grad_input_##S (x, dy, dx, c, count, channels, train, mean[c],  \
                                k, sum[c] / (T) count, invstd[c], w);           \
              }                                                                 \
            if (dw != NULL)                                                     \
              dw[c] = dot[c] * invstd[c];                                       \
            if (db != NULL)                                                     \
              db[c] = sum[c];                                                   \
          }                                                                     \
        g_free (sum);                                                           \
        g_free (dot);                                                           \
      }                                                                         \
  }

DEFINE_BATCH_NORM (f32, float, 8, fmaf)
DEFINE_BATCH_NORM (f64, double, 4, fma)

/* (N, C, plane) of x. */
static void
geometry (const CrTensor *x,
          gint64         *batch,
          gint64         *channels,
          gint64         *plane)
{
  *batch = x->shape[0];
  *channels = x->shape[1];
  *plane = 1;
  for (int d = 2; d < x->ndim; d++)
    *plane *= x->shape[d];
}

#define DATA(t, T) ((t) != NULL ? (T *) cr_tensor_data (t) : NULL)

gboolean
cr_cpu_batch_norm_stats (const CrTensor  *x,
                         double           eps,
                         CrTensor       **out_mean,
                         CrTensor       **out_invstd,
                         CrTensor       **out_var_sum,
                         GError         **error)
{
  gint64 batch, channels, plane;
  g_autoptr(CrTensor) xd = dense (x, error);
  g_autoptr(CrTensor) mean = xd != NULL ? per_channel_new (x, error) : NULL;
  g_autoptr(CrTensor) invstd = mean != NULL ? per_channel_new (x, error) : NULL;
  g_autoptr(CrTensor) var_sum = invstd != NULL ? per_channel_new (x, error) : NULL;

  if (var_sum == NULL)
    return FALSE;
  geometry (x, &batch, &channels, &plane);
  if (x->dtype == CR_DTYPE_FLOAT32)
    stats_f32 (DATA (xd, const float), batch, channels, plane, eps, DATA (mean, float),
               DATA (invstd, float), DATA (var_sum, float));
  else
    stats_f64 (DATA (xd, const double), batch, channels, plane, eps, DATA (mean, double),
               DATA (invstd, double), DATA (var_sum, double));
  *out_mean = g_steal_pointer (&mean);
  *out_invstd = g_steal_pointer (&invstd);
  *out_var_sum = g_steal_pointer (&var_sum);
  return TRUE;
}

CrTensor *
cr_cpu_batch_norm_invstd (const CrTensor  *running_var,
                          double           eps,
                          gboolean         forward,
                          GError         **error)
{
  g_autoptr(CrTensor) v = dense (running_var, error);
  CrTensor *out = v != NULL ? cr_tensor_new_empty (v->shape, 1, v->dtype, CR_DEVICE_CPU, error)
                            : NULL;

  if (out == NULL)
    return NULL;
  /* PyTorch's 1 / std::sqrt(running_var + eps): the backward's in double
   * (eps is one), the forward's in the dtype. */
  for (gint64 c = 0; c < v->numel; c++)
    {
      if (v->dtype == CR_DTYPE_FLOAT32 && forward)
        DATA (out, float)[c] = 1.0f / sqrtf (DATA (v, float)[c] + (float) eps);
      else if (v->dtype == CR_DTYPE_FLOAT32)
        DATA (out, float)[c] = (float) (1.0 / sqrt (DATA (v, float)[c] + eps));
      else
        DATA (out, double)[c] = 1.0 / sqrt (DATA (v, double)[c] + eps);
    }
  return out;
}

CrTensor *
cr_cpu_batch_norm_apply (const CrTensor  *x,
                         const CrTensor  *mean,
                         const CrTensor  *invstd,
                         const CrTensor  *weight,
                         const CrTensor  *bias,
                         GError         **error)
{
  gint64 batch, channels, plane;
  g_autoptr(CrTensor) xd = dense (x, error);
  g_autoptr(CrTensor) md = xd != NULL ? dense (mean, error) : NULL;
  g_autoptr(CrTensor) id = md != NULL ? dense (invstd, error) : NULL;
  g_autoptr(CrTensor) wd = id != NULL && weight != NULL ? dense (weight, error) : NULL;
  g_autoptr(CrTensor) bd = id != NULL && bias != NULL ? dense (bias, error) : NULL;
  CrTensor *out;

  if (id == NULL || (weight != NULL && wd == NULL) || (bias != NULL && bd == NULL))
    return NULL;
  out = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  geometry (x, &batch, &channels, &plane);
  if (x->dtype == CR_DTYPE_FLOAT32)
    apply_f32 (DATA (xd, const float), batch, channels, plane, DATA (md, const float),
               DATA (id, const float), DATA (wd, const float), DATA (bd, const float),
               DATA (out, float));
  else
    apply_f64 (DATA (xd, const double), batch, channels, plane, DATA (md, const double),
               DATA (id, const double), DATA (wd, const double), DATA (bd, const double),
               DATA (out, double));
  return out;
}

static gboolean
check_running (CrTensor  *running,
               GError   **error)
{
  if (cr_tensor_is_contiguous (running))
    return TRUE;
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "batch_norm: the running statistics must be contiguous");
  return FALSE;
}

/* Measured against PyTorch 1.13: both move in the dtype's own arithmetic
 * (momentum rounded to it first), the variance's with its multiply-add
 * fused. */
gboolean
cr_cpu_batch_norm_update_mean (CrTensor        *running_mean,
                               const CrTensor  *mean,
                               double           momentum,
                               GError         **error)
{
  g_autoptr(CrTensor) md = dense (mean, error);

  if (md == NULL || !check_running (running_mean, error))
    return FALSE;
  for (gint64 c = 0; c < running_mean->numel; c++)
    {
      if (running_mean->dtype == CR_DTYPE_FLOAT32)
        {
          float *r = DATA (running_mean, float), m = (float) momentum;
          r[c] = m * DATA (md, float)[c] + (1 - m) * r[c];
        }
      else
        {
          double *r = DATA (running_mean, double);
          r[c] = momentum * DATA (md, double)[c] + (1 - momentum) * r[c];
        }
    }
  return TRUE;
}

gboolean
cr_cpu_batch_norm_update_var (CrTensor        *running_var,
                              const CrTensor  *var_sum,
                              gint64           count,
                              double           momentum,
                              GError         **error)
{
  g_autoptr(CrTensor) vd = dense (var_sum, error);

  if (vd == NULL || !check_running (running_var, error))
    return FALSE;
  for (gint64 c = 0; c < running_var->numel; c++)
    {
      if (running_var->dtype == CR_DTYPE_FLOAT32)
        {
          float *r = DATA (running_var, float), m = (float) momentum;
          float unbiased = DATA (vd, float)[c] / (float) (count - 1);
          r[c] = fmaf (m, unbiased, (1 - m) * r[c]);
        }
      else
        {
          double *r = DATA (running_var, double);
          double unbiased = DATA (vd, double)[c] / (double) (count - 1);
          r[c] = fma (momentum, unbiased, (1 - momentum) * r[c]);
        }
    }
  return TRUE;
}

gboolean
cr_cpu_batch_norm_backward (const CrTensor  *grad_out,
                            const CrTensor  *x,
                            const CrTensor  *weight,
                            const CrTensor  *mean,
                            const CrTensor  *invstd,
                            gboolean         train,
                            const gboolean  *want,
                            CrTensor       **out_grads,
                            GError         **error)
{
  gint64 batch, channels, plane;
  gint64 c_shape = x->shape[1];
  g_autoptr(CrTensor) gd = dense (grad_out, error);
  g_autoptr(CrTensor) xd = gd != NULL ? dense (x, error) : NULL;
  g_autoptr(CrTensor) md = xd != NULL ? dense (mean, error) : NULL;
  g_autoptr(CrTensor) id = md != NULL ? dense (invstd, error) : NULL;
  g_autoptr(CrTensor) wd = id != NULL && weight != NULL ? dense (weight, error) : NULL;
  g_autoptr(CrTensor) dx = NULL;
  g_autoptr(CrTensor) dw = NULL;
  g_autoptr(CrTensor) db = NULL;

  if (id == NULL || (weight != NULL && wd == NULL))
    return FALSE;
  if ((want[0] && (dx = cr_tensor_new_empty (x->shape, x->ndim, x->dtype, CR_DEVICE_CPU,
                                             error)) == NULL)
      || (want[1] && (dw = cr_tensor_new_empty (&c_shape, 1, x->dtype, CR_DEVICE_CPU,
                                                error)) == NULL)
      || (want[2] && (db = cr_tensor_new_empty (&c_shape, 1, x->dtype, CR_DEVICE_CPU,
                                                error)) == NULL))
    return FALSE;
  geometry (x, &batch, &channels, &plane);
  if (x->dtype == CR_DTYPE_FLOAT32)
    backward_f32 (DATA (gd, const float), DATA (xd, const float), batch, channels, plane,
                  DATA (wd, const float), DATA (md, const float), DATA (id, const float), train,
                  DATA (dx, float), DATA (dw, float), DATA (db, float));
  else
    backward_f64 (DATA (gd, const double), DATA (xd, const double), batch, channels, plane,
                  DATA (wd, const double), DATA (md, const double), DATA (id, const double),
                  train, DATA (dx, double), DATA (dw, double), DATA (db, double));
  out_grads[0] = g_steal_pointer (&dx);
  out_grads[1] = g_steal_pointer (&dw);
  out_grads[2] = g_steal_pointer (&db);
  return TRUE;
}
