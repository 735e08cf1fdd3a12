/* cr-cpu-vecmath.h — exp, log, tanh and sigmoid that gcc vectorises.
 *
 * libm's expf/tanhf are calls that a loop cannot vectorise, 3-7 ns per element:
 * slower than streaming the memory. These are branch-free (selects instead of
 * branches, bit tricks instead of frexp/ldexp) so that a loop calling them
 * becomes SSE2/AVX2 code. Polynomials and reductions follow Cephes (S. Moshier),
 * within ~1-2 ulp of libm over the whole range; inf, nan, overflow, underflow
 * (including subnormal results) are handled.
 *
 * They are deterministic: plain IEEE operations in a fixed order and no FMA,
 * so every vector width gives bit-identical results (the random generator
 * relies on it). Private to core/cpu/. */
#pragma once

#include <glib.h>
#include <string.h>

static inline guint32
cr_f2u (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static inline float
cr_u2f (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

static inline guint64
cr_d2u (double d)
{
  guint64 u;

  memcpy (&u, &d, sizeof u);
  return u;
}

static inline double
cr_u2d (guint64 u)
{
  double d;

  memcpy (&d, &u, sizeof d);
  return d;
}

/* ---- float32 ------------------------------------------------------------ */

static inline float
cr_vexpf (float x)
{
  const float magic = 12582912.0f;      /* 0x1.8p23: adding it rounds to an integer */
  float t, n, r, r2, p, s1, s2;
  gint32 ni, n1, n2;

  /* Past these bounds the result is inf or 0 anyway; clamping keeps the
   * exponent arithmetic in range. NaN fails both tests and stays NaN. */
  x = x > 88.8f ? 88.8f : x;
  x = x < -104.0f ? -104.0f : x;

  t = x * 1.44269504088896341f + magic;
  n = t - magic;
  ni = (gint32) (cr_f2u (t) - cr_f2u (magic));

  /* Cody-Waite: ln2 in two parts so that x - n*ln2 is exact. */
  r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  r2 = r * r;
  p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r2 + r + 1.0f;

  /* 2^n in two factors so that n = 128 (overflow to inf) and n < -126
   * (subnormal results) both come out right. */
  n1 = ni >> 1;
  n2 = ni - n1;
  s1 = cr_u2f ((guint32) (n1 + 127) << 23);
  s2 = cr_u2f ((guint32) (n2 + 127) << 23);
  return p * s1 * s2;
}

static inline float
cr_vlogf (float x)
{
  guint32 ix;
  gint32 e;
  float m, ef, z, y, p, result;
  gboolean tiny = x < 1.17549435e-38f;

  /* Subnormals: scale into the normal range first. */
  float xs = tiny ? x * 8388608.0f : x;

  ix = cr_f2u (xs);
  e = (gint32) ((ix >> 23) & 0xff) - 126 - (tiny ? 23 : 0);
  m = cr_u2f ((ix & 0x007fffff) | 0x3f000000);     /* [0.5, 1) */

  /* Keep m in [sqrt(1/2), sqrt(2)) around 1. */
  {
    gboolean low = m < 0.707106781186547524f;

    e = low ? e - 1 : e;
    m = low ? m + m - 1.0f : m - 1.0f;
  }
  ef = (float) e;

  z = m * m;
  p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  y = m * z * p;
  y = y + ef * -2.12194440e-4f;
  y = y - 0.5f * z;
  result = m + y;
  result = result + ef * 0.693359375f;

  result = x == 0.0f ? -__builtin_inff () : result;
  result = x == __builtin_inff () ? x : result;
  result = (x < 0.0f || x != x) ? __builtin_nanf ("") : result;
  return result;
}

static inline float
cr_vtanhf (float x)
{
  float z = x < 0.0f ? -x : x;
  float s = x * x;
  float small, big, e;

  small = -5.70498872745e-3f;
  small = small * s + 2.06390887954e-2f;
  small = small * s - 5.37397155531e-2f;
  small = small * s + 1.33314422036e-1f;
  small = small * s - 3.33332819422e-1f;
  small = small * s * x + x;

  e = cr_vexpf (z + z);
  big = 1.0f - 2.0f / (e + 1.0f);
  big = x < 0.0f ? -big : big;

  return z > 0.625f ? big : small;
}

/* PyTorch's formula, so that results below -88.7 are 0 as in PyTorch (e^-x
 * overflows) rather than subnormals that would print differently. */
static inline float
cr_vsigmoidf (float x)
{
  return 1.0f / (1.0f + cr_vexpf (-x));
}

/* sin and cos of x in [-pi/4, pi/4] (the random generator's Box-Muller). */
static inline float
cr_vsinf_reduced (float x)
{
  float z = x * x;
  float p = -1.9515295891e-4f;

  p = p * z + 8.3321608736e-3f;
  p = p * z - 1.6666654611e-1f;
  return p * z * x + x;
}

static inline float
cr_vcosf_reduced (float x)
{
  float z = x * x;
  float p = 2.443315711809948e-5f;

  p = p * z - 1.388731625493765e-3f;
  p = p * z + 4.166664568298827e-2f;
  return p * z * z - 0.5f * z + 1.0f;
}

/* ---- float64 ------------------------------------------------------------ */

static inline double
cr_vexp (double x)
{
  const double magic = 6755399441055744.0;     /* 0x1.8p52 */
  double t, n, r, xx, px, qx, p, s1, s2;
  gint64 ni, n1, n2;

  x = x > 710.0 ? 710.0 : x;
  x = x < -746.0 ? -746.0 : x;

  t = x * 1.4426950408889634073599 + magic;
  n = t - magic;
  ni = (gint64) (cr_d2u (t) - cr_d2u (magic));

  r = x - n * 6.93145751953125e-1;
  r = r - n * 1.42860682030941723212e-6;

  /* Cephes' Padé form: e^r = 1 + 2r P(r^2) / (Q(r^2) - r P(r^2)). */
  xx = r * r;
  px = 1.26177193074810590878e-4;
  px = px * xx + 3.02994407707441961300e-2;
  px = px * xx + 9.99999999999999999910e-1;
  px = px * r;
  qx = 3.00198505138664455042e-6;
  qx = qx * xx + 2.52448340349684104192e-3;
  qx = qx * xx + 2.27265548208155028766e-1;
  qx = qx * xx + 2.00000000000000000009e0;
  p = px / (qx - px);
  p = 1.0 + 2.0 * p;

  n1 = ni >> 1;
  n2 = ni - n1;
  s1 = cr_u2d ((guint64) (n1 + 1023) << 52);
  s2 = cr_u2d ((guint64) (n2 + 1023) << 52);
  return p * s1 * s2;
}

static inline double
cr_vlog (double x)
{
  const double two52 = 4503599627370496.0;
  gboolean tiny = x < 2.2250738585072014e-308;
  double xs = tiny ? x * two52 : x;
  guint64 ix = cr_d2u (xs);
  guint64 efield = (ix >> 52) & 0x7ff;
  double e, m, z, y, p, q, result;

  /* The exponent as a double without an int64 conversion (SSE2 has none). */
  e = cr_u2d (0x4330000000000000ULL | efield) - two52 - 1022.0 - (tiny ? 52.0 : 0.0);
  m = cr_u2d ((ix & 0x000fffffffffffffULL) | 0x3fe0000000000000ULL);   /* [0.5, 1) */
  {
    gboolean low = m < 0.70710678118654752440;

    e = low ? e - 1.0 : e;
    m = low ? m + m - 1.0 : m - 1.0;
  }

  p = 1.01875663804580931796e-4;
  p = p * m + 4.97494994976747001425e-1;
  p = p * m + 4.70579119878881725854e0;
  p = p * m + 1.44989225341610930846e1;
  p = p * m + 1.79368678507819816313e1;
  p = p * m + 7.70838733755885391666e0;
  q = m + 1.12873587189167450590e1;
  q = q * m + 4.52279145837532221105e1;
  q = q * m + 8.29875266912776603211e1;
  q = q * m + 7.11544750618563894466e1;
  q = q * m + 2.31251620126765340583e1;

  z = m * m;
  y = m * (z * p / q);
  y = y - e * 2.121944400546905827679e-4;
  y = y - 0.5 * z;
  result = m + y;
  result = result + e * 0.693359375;

  result = x == 0.0 ? -__builtin_inf () : result;
  result = x == __builtin_inf () ? x : result;
  result = (x < 0.0 || x != x) ? __builtin_nan ("") : result;
  return result;
}

static inline double
cr_vtanh (double x)
{
  double z = x < 0.0 ? -x : x;
  double s = x * x;
  double p, q, small, big, e;

  p = -9.64399179425052238628e-1;
  p = p * s - 9.92877231001918586564e1;
  p = p * s - 1.61468768441708447952e3;
  q = s + 1.12811678491632931402e2;
  q = q * s + 2.23548839060100448583e3;
  q = q * s + 4.84406305325125486048e3;
  small = x + x * s * (p / q);

  e = cr_vexp (z + z);
  big = 1.0 - 2.0 / (e + 1.0);
  big = x < 0.0 ? -big : big;

  return z > 0.625 ? big : small;
}

static inline double
cr_vsigmoid (double x)
{
  return 1.0 / (1.0 + cr_vexp (-x));
}
