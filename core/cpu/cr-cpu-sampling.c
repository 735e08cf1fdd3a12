/* cr-cpu-sampling.c — PyTorch 1.13's CPU samplers over the mt19937 stream.
 *
 * Each fill draws what PyTorch's kernel draws, in its order, and transforms
 * the bits as PyTorch does (ATen's DistributionsHelper/TransformationHelper
 * and the CPU DistributionKernels): a float uniform takes the low 24 bits of
 * one 32-bit draw, a double one the low 53 bits of a 64-bit draw; normal_ on
 * 16 or more contiguous elements fills uniforms first and turns them into
 * normals 16 at a time (the float32 kernel is PyTorch's AVX2 one, whose
 * Cephes log and sincos polynomials and fused multiply-adds are reproduced
 * here in scalar code); fewer elements, or a strided tensor, take scalar
 * Box-Muller in double with the second sample cached in the generator.
 *
 * Where PyTorch's compiler fused a multiply and an add (its AVX2 build uses
 * FMA), we call fma()/fmaf() and let the compiler fuse nothing else
 * (fp-contract=off), so the bits match on every x86-64. */
#include "cr-cpu-private.h"
#include "cr-random-private.h"

#include <math.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* An FMA copy picked at load time (fmaf inline) and exact contraction
 * rules in both copies. */
#define CR_SAMPLING_CLONES                                                     \
  __attribute__ ((target_clones ("arch=x86-64-v3", "default"),                 \
                  optimize ("fp-contract=off")))
#else
#define CR_SAMPLING_CLONES
#endif
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

/* ---- uniform bits ---------------------------------------------------- */

static inline float
uniform_float (CrGenerator *gen)
{
  return (float) (cr_mt19937_next (&gen->engine) & 0xffffffu) * (1.0f / 16777216.0f);
}

static inline double
uniform_double (CrGenerator *gen)
{
  return (double) (cr_generator_random64 (gen) & G_GUINT64_CONSTANT (0x1fffffffffffff))
         * (1.0 / 9007199254740992.0);
}

/* ---- walking a tensor in memory order ------------------------------------ */

/* The element offsets of a tensor in the order PyTorch's TensorIterator
 * visits them for an output: dims sorted by stride, largest outermost. A
 * contiguous tensor is simply 0, 1, 2, ... */
typedef struct {
  gboolean contiguous;
  int      ndim;
  gint64   shape[CR_MAX_DIMS];
  gint64   strides[CR_MAX_DIMS];
  gint64   index[CR_MAX_DIMS];
  gint64   offset;
  gint64   flat;
} Walk;

static void
walk_init (Walk           *w,
           const CrTensor *t)
{
  int order[CR_MAX_DIMS];
  int n = 0;

  memset (w, 0, sizeof *w);
  w->contiguous = cr_tensor_is_contiguous (t);
  if (w->contiguous)
    return;
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] != 1)
      order[n++] = d;
  /* Insertion sort, stable: the larger stride goes outside. */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && t->strides[order[j - 1]] < t->strides[order[j]]; j--)
      {
        int tmp = order[j];
        order[j] = order[j - 1];
        order[j - 1] = tmp;
      }
  w->ndim = n;
  for (int i = 0; i < n; i++)
    {
      w->shape[i] = t->shape[order[i]];
      w->strides[i] = t->strides[order[i]];
    }
}

/* The same walk for a second operand of self's shape (its strides given in
 * self's dim order); call after walk_init of self with that tensor. */
static void
walk_init_like (Walk           *w,
                const Walk     *self_walk,
                const CrTensor *self,
                const gint64   *strides)
{
  int order[CR_MAX_DIMS];
  int n = 0;

  memset (w, 0, sizeof *w);
  if (self_walk->contiguous)
    {
      /* Walk `strides` in logical order. */
      for (int d = 0; d < self->ndim; d++)
        if (self->shape[d] != 1)
          order[n++] = d;
    }
  else
    {
      for (int d = 0; d < self->ndim; d++)
        if (self->shape[d] != 1)
          order[n++] = d;
      for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && self->strides[order[j - 1]] < self->strides[order[j]]; j--)
          {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
          }
    }
  w->ndim = n;
  for (int i = 0; i < n; i++)
    {
      w->shape[i] = self->shape[order[i]];
      w->strides[i] = strides[order[i]];
    }
}

/* The offset (in elements) of the current element; moves to the next. */
static inline gint64
walk_next (Walk *w)
{
  gint64 at;

  if (w->contiguous)
    return w->flat++;
  at = w->offset;
  for (int d = w->ndim - 1; d >= 0; d--)
    {
      w->offset += w->strides[d];
      if (++w->index[d] < w->shape[d])
        break;
      w->offset -= w->strides[d] * w->shape[d];
      w->index[d] = 0;
    }
  return at;
}

/* Stores v (already in the dtype's range) at element offset `at`. */
static inline void
store_double (CrTensor *t,
              gint64    at,
              double    v)
{
  char *base = cr_tensor_data (t);

  switch (t->dtype)
    {
    case CR_DTYPE_FLOAT32:
      ((float *) base)[at] = (float) v;
      break;
    case CR_DTYPE_FLOAT64:
      ((double *) base)[at] = v;
      break;
    case CR_DTYPE_INT64:
      ((gint64 *) base)[at] = cr_double_to_int64 (v);
      break;
    case CR_DTYPE_INT32:
      ((gint32 *) base)[at] = cr_double_to_int32 (v);
      break;
    case CR_DTYPE_UINT8:
      ((guint8 *) base)[at] = cr_double_to_uint8 (v);
      break;
    case CR_DTYPE_BOOL:
    default:
      ((guint8 *) base)[at] = v != 0.0;
      break;
    }
}

static inline void
store_int (CrTensor *t,
           gint64    at,
           gint64    v)
{
  char *base = cr_tensor_data (t);

  switch (t->dtype)
    {
    case CR_DTYPE_FLOAT32:
      ((float *) base)[at] = (float) v;
      break;
    case CR_DTYPE_FLOAT64:
      ((double *) base)[at] = (double) v;
      break;
    case CR_DTYPE_INT64:
      ((gint64 *) base)[at] = v;
      break;
    case CR_DTYPE_INT32:
      ((gint32 *) base)[at] = (gint32) (guint32) (guint64) v;
      break;
    case CR_DTYPE_UINT8:
      ((guint8 *) base)[at] = (guint8) (guint64) v;
      break;
    case CR_DTYPE_BOOL:
    default:
      ((guint8 *) base)[at] = v != 0;
      break;
    }
}

static gboolean
check_cpu (const CrTensor  *t,
           GError         **error)
{
  if (t->device == CR_DEVICE_CPU)
    return TRUE;
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Expected a 'cpu' device type for generator but found 'cuda'");
  return FALSE;
}

static gboolean
check_floating (const CrTensor  *t,
                const char      *kernel,
                GError         **error)
{
  if (!check_cpu (t, error))
    return FALSE;
  if (cr_dtype_is_floating (t->dtype))
    return TRUE;
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "\"%s\" not implemented for '%s'",
               kernel, cr_dtype_scalar_name (t->dtype));
  return FALSE;
}

/* ---- uniform_ ------------------------------------------------------------ */

gboolean
cr_random_uniform_ (CrGenerator  *gen,
                    CrTensor     *self,
                    double        from,
                    double        to,
                    GError      **error)
{
  Walk w;

  if (!check_floating (self, "uniform_kernel_cpu", error))
    return FALSE;
  walk_init (&w, self);
  if (self->dtype == CR_DTYPE_FLOAT32)
    {
      float *o = cr_tensor_data (self);
      float lo = (float) from, width = (float) to - (float) from;

      for (gint64 i = 0; i < self->numel; i++)
        o[walk_next (&w)] = fmaf (uniform_float (gen), width, lo);
    }
  else
    {
      double *o = cr_tensor_data (self);
      double width = to - from;

      for (gint64 i = 0; i < self->numel; i++)
        o[walk_next (&w)] = fma (uniform_double (gen), width, from);
    }
  return TRUE;
}

/* ---- normal_ ------------------------------------------------------------- */

/* One scalar normal in double (at::normal_distribution<double>): Box-Muller
 * on two uniforms, the sine sample kept for the next call. */
static double
normal_double (CrGenerator *gen,
               double       mean,
               double       std)
{
  double u1, u2, r, theta;

  if (gen->has_next_double_normal)
    {
      gen->has_next_double_normal = FALSE;
      return fma (gen->next_double_normal, std, mean);
    }
  u1 = uniform_double (gen);
  u2 = uniform_double (gen);
  r = sqrt (-2.0 * log (1.0 - u2));
  theta = 2.0 * G_PI * u1;
  gen->next_double_normal = r * sin (theta);
  gen->has_next_double_normal = TRUE;
  return fma (r * cos (theta), std, mean);
}

/* Cephes' logf as PyTorch's AVX2 log256_ps computes it, for normal x > 0. */
static inline float
cephes_logf (float x)
{
  guint32 bits;
  float e, low, z, y;

  memcpy (&bits, &x, 4);
  e = (float) ((gint32) (bits >> 23) - 0x7f) + 1.0f;
  bits = (bits & ~0x7f800000u) | 0x3f000000u;     /* mantissa in [0.5, 1) */
  memcpy (&x, &bits, 4);
  low = x < 0.707106781186547524f ? x : 0.0f;
  e = e - (x < 0.707106781186547524f ? 1.0f : 0.0f);
  x = x - 1.0f;
  x = x + low;
  z = x * x;
  y = 7.0376836292E-2f;
  y = fmaf (y, x, -1.1514610310E-1f);
  y = fmaf (y, x, 1.1676998740E-1f);
  y = fmaf (y, x, -1.2420140846E-1f);
  y = fmaf (y, x, 1.4249322787E-1f);
  y = fmaf (y, x, -1.6668057665E-1f);
  y = fmaf (y, x, 2.0000714765E-1f);
  y = fmaf (y, x, -2.4999993993E-1f);
  y = fmaf (y, x, 3.3333331174E-1f);
  y = y * x;
  y = fmaf (y, z, e * -2.12194440e-4f);
  y = fmaf (-z, 0.5f, y);
  x = x + y;
  return fmaf (e, 0.693359375f, x);
}

/* Cephes' sinf and cosf of x >= 0 together, as PyTorch's sincos256_ps. */
static inline void
cephes_sincosf (float  x,
                float *out_sin,
                float *out_cos)
{
  gint32 j = (gint32) (x * 1.27323954473516f);    /* x * 4/pi, truncated */
  float y, z, poly_cos, poly_sin, sin_part, cos_part;
  gboolean use_sin_poly;
  guint32 sin_sign, cos_sign, bits;

  j = (j + 1) & ~1;
  y = (float) j;
  sin_sign = (guint32) (j & 4) << 29;
  cos_sign = (guint32) (~(j - 2) & 4) << 29;
  use_sin_poly = (j & 2) == 0;
  /* x - y * pi/4 in three parts. */
  x = fmaf (y, -0.78515625f, x);
  x = fmaf (y, -2.4187564849853515625e-4f, x);
  x = fmaf (y, -3.77489497744594108e-8f, x);
  z = x * x;
  poly_cos = 2.443315711809948E-005f;
  poly_cos = fmaf (poly_cos, z, -1.388731625493765E-003f);
  poly_cos = fmaf (poly_cos, z, 4.166664568298827E-002f);
  poly_cos = poly_cos * z;
  poly_cos = fmaf (poly_cos, z, -(z * 0.5f));
  poly_cos = poly_cos + 1.0f;
  poly_sin = -1.9515295891E-4f;
  poly_sin = fmaf (poly_sin, z, 8.3321608736E-3f);
  poly_sin = fmaf (poly_sin, z, -1.6666654611E-1f);
  poly_sin = poly_sin * z;
  poly_sin = fmaf (poly_sin, x, x);
  /* PyTorch blends the two polynomials with masks and adds (keep its
   * signed zeros). */
  {
    float sin_from_sin = use_sin_poly ? poly_sin : 0.0f;
    float sin_from_cos = use_sin_poly ? 0.0f : poly_cos;

    sin_part = sin_from_cos + sin_from_sin;
    cos_part = (poly_cos - sin_from_cos) + (poly_sin - sin_from_sin);
  }
  memcpy (&bits, &sin_part, 4);
  bits ^= sin_sign;
  memcpy (out_sin, &bits, 4);
  memcpy (&bits, &cos_part, 4);
  bits ^= cos_sign;
  memcpy (out_cos, &bits, 4);
}

/* PyTorch's normal_fill_16_AVX2: 16 uniforms in place become 16 normals,
 * data[j] and data[j + 8] from one Box-Muller pair. */
CR_SAMPLING_CLONES static void
normal_fill_16_float (float *data,
                      float  mean,
                      float  std)
{
  for (int j = 0; j < 8; j++)
    {
      float u1 = 1.0f - data[j];
      float u2 = data[j + 8];
      float radius = sqrtf (-2.0f * cephes_logf (u1));
      float theta = (float) (2.0 * G_PI) * u2;
      float s, c;

      cephes_sincosf (theta, &s, &c);
      data[j] = fmaf (radius * c, std, mean);
      data[j + 8] = fmaf (radius * s, std, mean);
    }
}

static void
normal_fill_16_double (double *data,
                       double  mean,
                       double  std)
{
  for (int j = 0; j < 8; j++)
    {
      double u1 = 1.0 - data[j];
      double u2 = data[j + 8];
      double radius = sqrt (-2.0 * log (u1));
      double theta = 2.0 * G_PI * u2;

      data[j] = fma (radius * cos (theta), std, mean);
      data[j + 8] = fma (radius * sin (theta), std, mean);
    }
}

CR_SAMPLING_CLONES static void
normal_fill_float (CrGenerator *gen,
                   float       *data,
                   gint64       n,
                   float        mean,
                   float        std)
{
  for (gint64 i = 0; i < n; i++)
    data[i] = uniform_float (gen);
  for (gint64 i = 0; i + 16 <= n; i += 16)
    normal_fill_16_float (data + i, mean, std);
  if (n % 16 != 0)
    {
      /* The tail: the last 16 again, from fresh uniforms. */
      float *tail = data + n - 16;

      for (int i = 0; i < 16; i++)
        tail[i] = uniform_float (gen);
      normal_fill_16_float (tail, mean, std);
    }
}

static void
normal_fill_double (CrGenerator *gen,
                    double      *data,
                    gint64       n,
                    double       mean,
                    double       std)
{
  for (gint64 i = 0; i < n; i++)
    data[i] = uniform_double (gen);
  for (gint64 i = 0; i + 16 <= n; i += 16)
    normal_fill_16_double (data + i, mean, std);
  if (n % 16 != 0)
    {
      double *tail = data + n - 16;

      for (int i = 0; i < 16; i++)
        tail[i] = uniform_double (gen);
      normal_fill_16_double (tail, mean, std);
    }
}

gboolean
cr_random_normal_ (CrGenerator  *gen,
                   CrTensor     *self,
                   double        mean,
                   double        std,
                   GError      **error)
{
  Walk w;

  if (!check_floating (self, "normal_kernel_cpu", error))
    return FALSE;
  if (self->numel >= 16 && cr_tensor_is_contiguous (self))
    {
      if (self->dtype == CR_DTYPE_FLOAT32)
        normal_fill_float (gen, cr_tensor_data (self), self->numel, (float) mean, (float) std);
      else
        normal_fill_double (gen, cr_tensor_data (self), self->numel, mean, std);
      return TRUE;
    }
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    store_double (self, walk_next (&w), normal_double (gen, mean, std));
  return TRUE;
}

/* ---- random_ ------------------------------------------------------------- */

gboolean
cr_random_from_to_ (CrGenerator  *gen,
                    CrTensor     *self,
                    gint64        base,
                    guint64       range,
                    GError      **error)
{
  /* 64-bit draws for a wide range, except into bool (PyTorch's rule). */
  gboolean wide = self->dtype != CR_DTYPE_BOOL
                  && (range == 0 || range >= G_GUINT64_CONSTANT (1) << 32);
  Walk w;

  if (!check_cpu (self, error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    {
      guint64 bits = wide ? cr_generator_random64 (gen) : cr_generator_random (gen);
      /* range 0 stands for 2^64: every bit pattern, as an int64. */
      gint64 v = range == 0 ? (gint64) bits : (gint64) (bits % range + (guint64) base);

      store_int (self, walk_next (&w), v);
    }
  return TRUE;
}

gboolean
cr_random_random_ (CrGenerator  *gen,
                   CrTensor     *self,
                   GError      **error)
{
  Walk w;

  if (!check_cpu (self, error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    {
      gint64 at = walk_next (&w);

      switch (self->dtype)
        {
        case CR_DTYPE_FLOAT32:
          store_int (self, at, cr_generator_random (gen) % ((1u << 24) + 1));
          break;
        case CR_DTYPE_FLOAT64:
          store_int (self, at, (gint64) (cr_generator_random64 (gen)
                                         % ((G_GUINT64_CONSTANT (1) << 53) + 1)));
          break;
        case CR_DTYPE_INT64:
          store_int (self, at, (gint64) (cr_generator_random64 (gen)
                                         & G_GUINT64_CONSTANT (0x7fffffffffffffff)));
          break;
        case CR_DTYPE_INT32:
          store_int (self, at, cr_generator_random (gen) % (G_GUINT64_CONSTANT (1) << 31));
          break;
        case CR_DTYPE_UINT8:
          store_int (self, at, cr_generator_random (gen) % 256);
          break;
        case CR_DTYPE_BOOL:
        default:
          store_int (self, at, cr_generator_random (gen) & 1);
          break;
        }
    }
  return TRUE;
}

/* ---- bernoulli_, exponential_ -------------------------------------------- */

gboolean
cr_random_bernoulli_ (CrGenerator  *gen,
                      CrTensor     *self,
                      double        p,
                      GError      **error)
{
  Walk w;

  if (!check_cpu (self, error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    store_int (self, walk_next (&w), uniform_double (gen) < p);
  return TRUE;
}

gboolean
cr_random_bernoulli_tensor_ (CrGenerator     *gen,
                             CrTensor        *self,
                             const CrTensor  *p,
                             GError         **error)
{
  gint64 p_strides[CR_MAX_DIMS];
  Walk w, wp;
  const char *p_data;

  if (!check_cpu (self, error))
    return FALSE;
  if (!cr_dtype_is_floating (p->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'",
                   cr_dtype_scalar_name (p->dtype));
      return FALSE;
    }
  /* p broadcast to self's shape: stride 0 where p has no such dim. */
  for (int d = 0; d < self->ndim; d++)
    {
      int pd = d - (self->ndim - p->ndim);

      p_strides[d] = pd < 0 || p->shape[pd] == 1 ? 0 : p->strides[pd];
    }
  walk_init (&w, self);
  walk_init_like (&wp, &w, self, p_strides);
  wp.contiguous = FALSE;
  p_data = cr_tensor_data (p);
  for (gint64 i = 0; i < self->numel; i++)
    {
      gint64 at = walk_next (&w);
      gint64 p_at = walk_next (&wp);
      gboolean hit;

      if (p->dtype == CR_DTYPE_FLOAT64)
        hit = uniform_double (gen) < ((const double *) p_data)[p_at];
      else
        hit = uniform_float (gen) < ((const float *) p_data)[p_at];
      store_int (self, at, hit);
    }
  return TRUE;
}

gboolean
cr_random_exponential_ (CrGenerator  *gen,
                        CrTensor     *self,
                        double        lambd,
                        GError      **error)
{
  Walk w;

  if (!check_floating (self, "exponential_cpu", error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    store_double (self, walk_next (&w), -1.0 / lambd * log (1.0 - uniform_double (gen)));
  return TRUE;
}

gboolean
cr_random_log_normal_ (CrGenerator  *gen,
                       CrTensor     *self,
                       double        mean,
                       double        std,
                       GError      **error)
{
  Walk w;

  if (!check_floating (self, "log_normal_cpu", error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    store_double (self, walk_next (&w), exp (normal_double (gen, mean, std)));
  return TRUE;
}

gboolean
cr_random_cauchy_ (CrGenerator  *gen,
                   CrTensor     *self,
                   double        median,
                   double        sigma,
                   GError      **error)
{
  Walk w;

  if (!check_floating (self, "cauchy_cpu", error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    store_double (self, walk_next (&w),
                  fma (sigma, tan (G_PI * (uniform_double (gen) - 0.5)), median));
  return TRUE;
}

gboolean
cr_random_geometric_ (CrGenerator  *gen,
                      CrTensor     *self,
                      double        p,
                      GError      **error)
{
  Walk w;

  if (!check_cpu (self, error))
    return FALSE;
  walk_init (&w, self);
  for (gint64 i = 0; i < self->numel; i++)
    store_double (self, walk_next (&w), ceil (log (uniform_double (gen)) / log (1.0 - p)));
  return TRUE;
}

/* ---- randperm, multinomial ----------------------------------------------- */

CrTensor *
cr_random_randperm (CrGenerator  *gen,
                    gint64        n,
                    CrDType       dtype,
                    GError      **error)
{
  CrTensor *out = cr_tensor_new_empty (&n, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  gint64 *o;

  if (out == NULL)
    return NULL;
  o = cr_tensor_data (out);
  for (gint64 i = 0; i < n; i++)
    o[i] = i;
  /* Fisher-Yates from the front, one 32-bit draw per step. */
  for (gint64 i = 0; i < n - 1; i++)
    {
      gint64 z = (gint64) (cr_generator_random (gen) % (guint64) (n - i));
      gint64 saved = o[i];

      o[i] = o[z + i];
      o[z + i] = saved;
    }
  if (dtype != CR_DTYPE_INT64)
    {
      CrTensor *cast = cr_kernel_cast (out, dtype, error);
      cr_tensor_unref (out);
      out = cast;
    }
  return out;
}

static gint
by_key_descending (gconstpointer a,
                   gconstpointer b,
                   gpointer      keys_data)
{
  const double *keys = keys_data;
  gint64 i = *(const gint64 *) a, j = *(const gint64 *) b;

  if (keys[i] != keys[j])
    return keys[i] > keys[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* Without replacement: PyTorch's Gumbel trick,
 * argmax/top-k of p / q with q ~ Exp(1). */
static gboolean
multinomial_by_exponential (CrGenerator     *gen,
                            const CrTensor  *probs,
                            gint64           n_dist,
                            gint64           n_cat,
                            gint64           n_samples,
                            gint64          *out,
                            GError         **error)
{
  g_autoptr(CrTensor) q = cr_tensor_new_empty (probs->shape, probs->ndim, probs->dtype,
                                               CR_DEVICE_CPU, error);
  g_autofree double *keys = NULL;
  g_autofree gint64 *idx = NULL;

  if (q == NULL || !cr_random_exponential_ (gen, q, 1.0, error))
    return FALSE;
  keys = g_new (double, n_cat);
  idx = g_new (gint64, n_cat);
  for (gint64 r = 0; r < n_dist; r++)
    {
      for (gint64 c = 0; c < n_cat; c++)
        {
          gint64 flat = r * n_cat + c;

          /* The division in the tensor's dtype, as at::div_out. */
          if (probs->dtype == CR_DTYPE_FLOAT32)
            keys[c] = (double) ((float) cr_tensor_get_flat (probs, flat)
                                / ((const float *) cr_tensor_data (q))[flat]);
          else
            keys[c] = cr_tensor_get_flat (probs, flat) / ((const double *) cr_tensor_data (q))[flat];
          idx[c] = c;
        }
      /* The n largest, largest first (ties: the lower index first); a sort
       * keeps n up to the row's length at n log n. */
      g_qsort_with_data (idx, (gint) n_cat, sizeof (gint64), by_key_descending, keys);
      memcpy (out + r * n_samples, idx, sizeof (gint64) * n_samples);
    }
  return TRUE;
}

/* With replacement: a binary search of the normalised cumulative sums (in
 * the dtype) for each double uniform. */
static void
multinomial_with_replacement (CrGenerator     *gen,
                              const CrTensor  *probs,
                              gint64           n_dist,
                              gint64           n_cat,
                              gint64           n_samples,
                              gint64          *out)
{
  g_autofree double *cum = g_new (double, n_cat);
  gboolean is_float = probs->dtype == CR_DTYPE_FLOAT32;

  for (gint64 r = 0; r < n_dist; r++)
    {
      double sum = 0.0;
      float sum_f = 0.0f;

      for (gint64 c = 0; c < n_cat; c++)
        {
          double v = cr_tensor_get_flat (probs, r * n_cat + c);

          if (is_float)
            {
              sum_f += (float) v;
              cum[c] = sum_f;
            }
          else
            {
              sum += v;
              cum[c] = sum;
            }
        }
      for (gint64 c = 0; c < n_cat; c++)
        cum[c] = is_float ? (double) ((float) cum[c] / sum_f) : cum[c] / sum;
      cum[n_cat - 1] = 1.0;
      for (gint64 k = 0; k < n_samples; k++)
        {
          double u = uniform_double (gen);
          gint64 left = 0, right = n_cat;

          while (right - left > 0)
            {
              gint64 mid = left + (right - left) / 2;

              if (cum[mid] < u)
                left = mid + 1;
              else
                right = mid;
            }
          out[r * n_samples + k] = left;
        }
    }
}

CrTensor *
cr_random_multinomial (CrGenerator     *gen,
                       const CrTensor  *probs,
                       gint64           n_samples,
                       gboolean         replacement,
                       GError         **error)
{
  gint64 n_cat = probs->shape[probs->ndim - 1];
  gint64 n_dist = probs->ndim == 2 ? probs->shape[0] : 1;
  gint64 shape[2] = { n_dist, n_samples };
  g_autoptr(CrTensor) out = NULL;

  if (!check_floating (probs, "multinomial", error))
    return NULL;
  /* PyTorch's checks on the values. */
  for (gint64 r = 0; r < n_dist; r++)
    {
      double sum = 0.0;

      for (gint64 c = 0; c < n_cat; c++)
        {
          double v = cr_tensor_get_flat (probs, r * n_cat + c);

          if (!(v >= 0.0) || isinf (v))
            {
              g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                   replacement && n_samples > 1
                                   ? (v < 0.0 ? "invalid multinomial distribution "
                                                "(encountering probability entry < 0)"
                                              : "invalid multinomial distribution (encountering "
                                                "probability entry = infinity or NaN)")
                                   : "probability tensor contains either `inf`, `nan` or "
                                     "element < 0");
              return NULL;
            }
          sum += v;
        }
      if (sum <= 0.0)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "invalid multinomial distribution (sum of probabilities <= 0)");
          return NULL;
        }
    }
  out = cr_tensor_new_empty (probs->ndim == 2 ? shape : shape + 1, probs->ndim, CR_DTYPE_INT64,
                             CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  /* PyTorch 1.13 takes the exponential trick without replacement only (one
   * sample with replacement searches the cumulative sums, as /usr/bin/python3
   * shows; later versions changed this). */
  if (!replacement)
    {
      if (!multinomial_by_exponential (gen, probs, n_dist, n_cat, n_samples,
                                       cr_tensor_data (out), error))
        return NULL;
    }
  else
    multinomial_with_replacement (gen, probs, n_dist, n_cat, n_samples, cr_tensor_data (out));
  return g_steal_pointer (&out);
}
