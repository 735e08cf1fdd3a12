/* cr-cpu-torch-math.h — float32 functions with the bits of PyTorch 1.13's CPU
 * kernels.
 *
 * On an AVX2 machine PyTorch computes float32 sin and exp with SLEEF
 * (Sleef_sinf8_u10, Sleef_expf8_u10, FMA builds), not libm: the two differ
 * in the last bit for a few percent of arguments, which a training loop turns
 * into different losses. The FMAs here are fmaf calls, so the result does not
 * depend on the compiler's contraction or the vector width.
 *
 * sin follows SLEEF's algorithm for |x| < 125 (its fast
 * path): x - q·π with π in three float parts, a double-float square and
 * polynomial, the sign from q's parity. Larger arguments (SLEEF's slower
 * Payne-Hanek-like path) use libm's sinf. Private to core/cpu/. */
#pragma once

#include <float.h>
#include <glib.h>
#include <math.h>
#include <string.h>

/* A float pair hi + lo (SLEEF's "double-float"). */
typedef struct
{
  float hi, lo;
} CrFloatPair;

static inline float
cr_vsinf (float x)
{
  const float pi_a = 3.1414794921875f, pi_b = 0.00011315941810607910156f,
              pi_c = 1.9841872589410058936e-09f;
  CrFloatPair r, r2, poly, sum;
  float n, v, pb, pc, a, u, t;
  int q;

  if (!(fabsf (x) < 125.0f))
    return sinf (x);
  if (x == 0.0f)
    return x;   /* keeps -0 */

  /* n = the nearest multiple count of π; r = x - n·π as a pair. */
  n = rintf (x * (float) M_1_PI);
  q = (int) n;
  v = fmaf (n, -pi_a, x);
  pb = n * -pi_b;
  r.hi = v + pb;
  t = r.hi - v;
  r.lo = (v - (r.hi - t)) + (pb - t);
  pc = n * -pi_c;
  a = r.hi + pc;
  r.lo = ((r.hi - a) + pc) + r.lo;
  r.hi = a;

  /* r² as a pair. */
  r2.hi = r.hi * r.hi;
  r2.lo = fmaf (r.hi + r.hi, r.lo, fmaf (r.hi, r.hi, -r2.hi));

  /* 1 + r²·(c3 + r²·(c5 + r²·(c7 + r²·c9))), the outer steps in pairs. */
  u = 2.6083159809786593541503e-06f;
  u = fmaf (u, r2.hi, -0.0001981069071916863322258f);
  u = fmaf (u, r2.hi, 0.00833307858556509017944336f);
  t = u * r2.hi;
  poly.hi = -0.166666597127914428710938f + t;
  poly.lo = (-0.166666597127914428710938f - poly.hi) + t;
  a = poly.hi * r2.hi;
  poly.lo = fmaf (poly.hi, r2.lo, fmaf (poly.lo, r2.hi, fmaf (poly.hi, r2.hi, -a)));
  poly.hi = a;
  sum.hi = 1.0f + poly.hi;
  sum.lo = ((1.0f - sum.hi) + poly.hi) + poly.lo;

  /* r · sum, rounded once. */
  u = fmaf (r.hi, sum.hi, fmaf (r.lo, sum.hi, r.hi * sum.lo));
  return (q & 1) ? -u : u;
}

/* e^x as SLEEF's expf_u10: n = rint(x / ln 2), s = x - n ln 2 in two fused
 * steps, a degree-6 polynomial, then the scale by 2^n in two halves. */
static inline float
cr_torch_expf (float x)
{
  float n = rintf (x * 1.442695040888963407359924681001892137426645954152985934135449406931f);
  float s, u;
  int q, half;

  if (x != x)
    return x;
  if (x < -104.0f)
    return 0.0f;
  if (x > 100.0f)
    return INFINITY;
  q = (int) n;
  s = fmaf (n, -0.693145751953125f, x);
  s = fmaf (n, -1.428606765330187045e-06f, s);
  u = 0.000198527617612853646278381f;
  u = fmaf (u, s, 0.00139304355252534151077271f);
  u = fmaf (u, s, 0.00833336077630519866943359f);
  u = fmaf (u, s, 0.0416664853692054748535156f);
  u = fmaf (u, s, 0.166666671633720397949219f);
  u = fmaf (u, s, 0.5f);
  u = 1.0f + fmaf (s * s, u, s);
  half = q >> 1;
  return u * ldexpf (1.0f, half) * ldexpf (1.0f, q - half);
}

/* ln x as SLEEF's logf_u1 (Sleef_logf8_u10): x = m·2^e with m in [0.75, 1.5),
 * then 2·atanh((m-1)/(m+1)) as a float pair plus e·ln 2. */
static inline float
cr_torch_logf (float x)
{
  const float ln2_hi = 0.69314718246459960938f, ln2_lo = -1.904654323148236017e-09f;
  CrFloatPair s, num, den, q, sum;
  float d = x, m, fe, t, x2, inv, u, a, v;
  guint32 bits;
  int e;
  gboolean tiny;

  if (x != x || x < 0.0f)
    return NAN;
  if (x == 0.0f)
    return -INFINITY;
  if (isinf (x))
    return INFINITY;
  tiny = d < FLT_MIN;
  if (tiny)
    d *= 18446744073709551616.0f;   /* 2^64 */
  a = d * (1.0f / 0.75f);
  memcpy (&bits, &a, sizeof bits);
  e = (int) ((bits >> 23) & 0xff) - 0x7f;
  memcpy (&bits, &d, sizeof bits);
  bits = (guint32) ((gint32) bits - (gint32) ((guint32) e << 23));
  memcpy (&m, &bits, sizeof m);
  if (tiny)
    e -= 64;
  fe = (float) e;
  s.hi = ln2_hi * fe;
  s.lo = fmaf (ln2_lo, fe, fmaf (ln2_hi, fe, -s.hi));

  /* (m - 1) / (m + 1) as a pair. */
  num.hi = -1.0f + m;
  v = num.hi - -1.0f;
  num.lo = (-1.0f - (num.hi - v)) + (m - v);
  den.hi = 1.0f + m;
  v = den.hi - 1.0f;
  den.lo = (1.0f - (den.hi - v)) + (m - v);
  inv = 1.0f / den.hi;
  q.hi = num.hi * inv;
  u = fmaf (inv, num.hi, -q.hi);
  q.lo = fmaf (-den.lo, inv, fmaf (-den.hi, inv, 1.0f));
  q.lo = fmaf (q.hi, q.lo, fmaf (num.lo, inv, u));

  x2 = q.hi * q.hi;
  t = 0.3027294874f;
  t = fmaf (t, x2, 0.3996108174f);
  t = fmaf (t, x2, 0.6666694880f);

  sum.hi = s.hi + q.hi * 2.0f;
  sum.lo = (((s.hi - sum.hi) + q.hi * 2.0f) + s.lo) + q.lo * 2.0f;
  a = (x2 * q.hi) * t;
  v = sum.hi + a;
  sum.lo = ((sum.hi - v) + a) + sum.lo;
  sum.hi = v;
  return sum.hi + sum.lo;
}
