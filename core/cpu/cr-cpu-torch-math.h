/* cr-cpu-torch-math.h — float32 functions with the bits of PyTorch 1.13's CPU
 * kernels.
 *
 * On an AVX2 machine PyTorch computes float32 sin and exp with SLEEF
 * (Sleef_sinf8_u10, Sleef_expf8_u10, FMA builds), not libm: the two differ
 * in the last bit for a few percent of arguments, which a training loop turns
 * into different losses. The FMAs here are fmaf calls and core is built with
 * -ffp-contract=off, so the result does not depend on the compiler's
 * contraction or the vector width.
 *
 * exp, log and tanh are written branch-free (special cases as selects at the
 * end, 2^n from its bits rather than ldexpf) so that a row of them
 * vectorises where fmaf is an instruction: CR_VEC_CLONES' x86-64-v3 copy
 * (AVX2 + FMA). Elsewhere fmaf is libm's exact call and the loop stays
 * scalar, with the same bits.
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

/* cos as SLEEF's cosf_u1 for |x| < 125 (libm's cosf beyond): x - (2q+1)·π/2
 * in float pairs, the same polynomial as sin, the sign from q & 2. */
static inline float
cr_vcosf (float x)
{
  const float pi_a = 3.1414794921875f * 0.5f, pi_b = 0.00011315941810607910156f * 0.5f,
              pi_c = 1.9841872589410058936e-09f * 0.5f;
  CrFloatPair r, r2, poly, sum;
  float dq, w, t, v, a, u;
  int q;

  if (!(fabsf (x) < 125.0f))
    return cosf (x);
  dq = fmaf (rintf (fmaf (x, (float) M_1_PI, -0.5f)), 2.0f, 1.0f);
  q = (int) dq;
  w = dq * -pi_a;
  r.hi = x + w;
  v = r.hi - x;
  r.lo = (x - (r.hi - v)) + (w - v);
  w = dq * -pi_b;
  t = r.hi + w;
  v = t - r.hi;
  r.lo = ((r.hi - (t - v)) + (w - v)) + r.lo;
  r.hi = t;
  w = dq * -pi_c;
  t = r.hi + w;
  v = t - r.hi;
  r.lo = ((r.hi - (t - v)) + (w - v)) + r.lo;
  r.hi = t;

  r2.hi = r.hi * r.hi;
  r2.lo = fmaf (r.hi + r.hi, r.lo, fmaf (r.hi, r.hi, -r2.hi));
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
  u = fmaf (r.hi, sum.hi, fmaf (r.lo, sum.hi, r.hi * sum.lo));
  return (q & 2) == 0 ? -u : u;
}

/* 2^q for q in [-126, 127], from its bits. */
static inline float
cr_pow2if (int q)
{
  guint32 bits = (guint32) (q + 0x7f) << 23;
  float f;

  memcpy (&f, &bits, sizeof f);
  return f;
}

/* e^x as SLEEF's expf_u10: n = rint(x / ln 2), s = x - n ln 2 in two fused
 * steps, a degree-6 polynomial, then the scale by 2^n in two halves. */
static inline G_ALWAYS_INLINE float
cr_torch_expf (float x)
{
  /* Clamped so that the conversion to int is defined; the clamped
   * arguments are replaced at the end. */
  float xc = x > -104.0f ? x : -104.0f;
  float n, s, u, r;
  int q, half;

  xc = xc < 100.0f ? xc : 100.0f;
  n = rintf (xc * 1.442695040888963407359924681001892137426645954152985934135449406931f);
  q = (int) n;
  half = q >> 1;

  s = fmaf (n, -0.693145751953125f, xc);
  s = fmaf (n, -1.428606765330187045e-06f, s);
  u = 0.000198527617612853646278381f;
  u = fmaf (u, s, 0.00139304355252534151077271f);
  u = fmaf (u, s, 0.00833336077630519866943359f);
  u = fmaf (u, s, 0.0416664853692054748535156f);
  u = fmaf (u, s, 0.166666671633720397949219f);
  u = fmaf (u, s, 0.5f);
  u = 1.0f + fmaf (s * s, u, s);
  r = u * cr_pow2if (half) * cr_pow2if (q - half);
  r = x < -104.0f ? 0.0f : r;
  r = x > 100.0f ? INFINITY : r;
  return x != x ? x : r;
}

/* ln x as SLEEF's logf_u1 (Sleef_logf8_u10): x = m·2^e with m in [0.75, 1.5),
 * then 2·atanh((m-1)/(m+1)) as a float pair plus e·ln 2. */
static inline G_ALWAYS_INLINE float
cr_torch_logf (float x)
{
  const float ln2_hi = 0.69314718246459960938f, ln2_lo = -1.904654323148236017e-09f;
  CrFloatPair s, num, den, q, sum;
  float m, fe, t, x2, inv, u, a, v, r;
  guint32 bits, d_bits;
  int e;
  gboolean tiny = x < FLT_MIN;
  float d = tiny ? x * 18446744073709551616.0f : x;   /* 2^64 */

  a = d * (1.0f / 0.75f);
  memcpy (&bits, &a, sizeof bits);
  e = (int) ((bits >> 23) & 0xff) - 0x7f;
  memcpy (&d_bits, &d, sizeof d_bits);
  d_bits -= (guint32) e << 23;   /* unsigned: wraps like the integer add SLEEF does */
  memcpy (&m, &d_bits, sizeof m);
  e -= tiny ? 64 : 0;
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
  r = sum.hi + sum.lo;
  /* The special cases, the first that applies winning. */
  r = x == INFINITY ? INFINITY : r;
  r = x == 0.0f ? -INFINITY : r;
  return (x != x || x < 0.0f) ? NAN : r;
}

/* SLEEF's logkf: ln |d| as a float pair (for powf). */
static inline CrFloatPair
cr_torch_logkf (float d)
{
  const float ln2_hi = 0.69314718246459960938f, ln2_lo = -1.904654323148236017e-09f;
  CrFloatPair s, num, den, q, q2, p, c, r, tmp;
  float m, fe, t, inv, u, a, v;
  guint32 bits;
  int e;
  gboolean tiny = d < FLT_MIN;

  if (tiny)
    d *= 18446744073709551616.0f;   /* 2^64 */
  a = d * (1.0f / 0.75f);
  memcpy (&bits, &a, sizeof bits);
  e = (int) ((bits >> 23) & 0xff) - 0x7f;
  memcpy (&bits, &d, sizeof bits);
  bits -= (guint32) e << 23;   /* unsigned: wraps like the integer add SLEEF does */
  memcpy (&m, &bits, sizeof m);
  if (tiny)
    e -= 64;

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

  q2.hi = q.hi * q.hi;
  q2.lo = fmaf (q.hi + q.hi, q.lo, fmaf (q.hi, q.hi, -q2.hi));
  t = 0.240320354700088500976562f;
  t = fmaf (t, q2.hi, 0.285112679004669189453125f);
  t = fmaf (t, q2.hi, 0.400007992982864379882812f);
  c.hi = 0.66666662693023681640625f;
  c.lo = 3.69183861259614332084311e-09f;

  fe = (float) e;
  s.hi = ln2_hi * fe;
  s.lo = fmaf (ln2_lo, fe, fmaf (ln2_hi, fe, -s.hi));
  /* s += 2q */
  r.hi = s.hi + q.hi * 2.0f;
  r.lo = (((s.hi - r.hi) + q.hi * 2.0f) + s.lo) + q.lo * 2.0f;
  s = r;
  /* p = q2 * t + c (dfadd2 of a pair and a pair) */
  tmp.hi = q2.hi * t;
  tmp.lo = fmaf (q2.lo, t, fmaf (q2.hi, t, -tmp.hi));
  p.hi = tmp.hi + c.hi;
  v = p.hi - tmp.hi;
  p.lo = (tmp.hi - (p.hi - v)) + (c.hi - v);
  p.lo = p.lo + (tmp.lo + c.lo);
  /* tmp = (q2 * q) * p */
  r.hi = q2.hi * q.hi;
  r.lo = fmaf (q2.hi, q.lo, fmaf (q2.lo, q.hi, fmaf (q2.hi, q.hi, -r.hi)));
  tmp.hi = r.hi * p.hi;
  tmp.lo = fmaf (r.hi, p.lo, fmaf (r.lo, p.hi, fmaf (r.hi, p.hi, -tmp.hi)));
  /* s += tmp */
  r.hi = s.hi + tmp.hi;
  r.lo = (((s.hi - r.hi) + tmp.hi) + s.lo) + tmp.lo;
  return r;
}

/* SLEEF's expkf: e^(d.hi + d.lo) (for powf). */
static inline float
cr_torch_expkf (CrFloatPair d)
{
  float u = (d.hi + d.lo) * 1.442695040888963407359924681001892137426645954152985934135449406931f;
  float n = rintf (u), t, v, w;
  CrFloatPair s, s2, r;
  int q, half;

  if (d.hi < -104.0f)
    return 0.0f;
  if (!(fabsf (n) < 1000.0f))
    return d.hi > 0.0f ? INFINITY : 0.0f;
  q = (int) n;
  /* s = d + q·(-ln2 hi), then + q·(-ln2 lo), each a dfadd2 of pair and float */
  w = n * -0.693145751953125f;
  s.hi = d.hi + w;
  v = s.hi - d.hi;
  s.lo = ((d.hi - (s.hi - v)) + (w - v)) + d.lo;
  w = n * -1.428606765330187045e-06f;
  t = s.hi + w;
  v = t - s.hi;
  s.lo = ((s.hi - (t - v)) + (w - v)) + s.lo;
  s.hi = t;
  /* normalise */
  t = s.hi + s.lo;
  s.lo = (s.hi - t) + s.lo;
  s.hi = t;

  u = 0.00136324646882712841033936f;
  u = fmaf (u, s.hi, 0.00836596917361021041870117f);
  u = fmaf (u, s.hi, 0.0416710823774337768554688f);
  u = fmaf (u, s.hi, 0.166665524244308471679688f);
  u = fmaf (u, s.hi, 0.499999850988388061523438f);

  s2.hi = s.hi * s.hi;
  s2.lo = fmaf (s.hi + s.hi, s.lo, fmaf (s.hi, s.hi, -s2.hi));
  /* r = s2 * u (pair times float) */
  r.hi = s2.hi * u;
  r.lo = fmaf (s2.lo, u, fmaf (s2.hi, u, -r.hi));
  /* t = s + r */
  t = s.hi + r.hi;
  w = (((s.hi - t) + r.hi) + s.lo) + r.lo;
  /* 1 + t */
  v = 1.0f + t;
  w = ((1.0f - v) + t) + w;
  u = v + w;
  half = q >> 1;
  return u * ldexpf (1.0f, half) * ldexpf (1.0f, q - half);
}

/* x^y as SLEEF's powf_u10: exp(y · ln|x|) in float pairs, then IEEE's
 * special cases. */
static inline float
cr_torch_powf (float x, float y)
{
  gboolean y_int = truncf (y) == y || fabsf (y) > 16777216.0f;
  gboolean y_odd = y_int && fabsf (y) < 16777216.0f && (((gint32) truncf (y)) & 1) != 0;
  CrFloatPair l = cr_torch_logkf (fabsf (x)), ly;
  float result, efx;

  if (y == 0.0f || x == 1.0f)
    return 1.0f;
  if (x != x || y != y)
    return NAN;
  ly.hi = l.hi * y;
  ly.lo = fmaf (l.lo, y, fmaf (l.hi, y, -ly.hi));
  result = cr_torch_expkf (ly);
  if (result != result)
    result = INFINITY;
  result *= x > 0.0f ? 1.0f : !y_int ? NAN : y_odd ? -1.0f : 1.0f;
  efx = copysignf (1.0f, y) * (fabsf (x) - 1.0f);
  if (isinf (y))
    result = efx < 0.0f ? 0.0f : efx == 0.0f ? 1.0f : INFINITY;
  if (isinf (x) || x == 0.0f)
    result = (y_odd ? copysignf (1.0f, x) : 1.0f)
             * (((x == 0.0f ? -y : y) < 0.0f) ? 0.0f : INFINITY);
  return result;
}

/* sigmoid as PyTorch's vectorised kernel: 1 / (1 + e^-x) with SLEEF's exp. */
static inline float
cr_torch_sigmoidf (float x)
{
  return 1.0f / (1.0f + cr_torch_expf (-x));
}

/* a + b for float pairs, SLEEF's dfadd2 (no magnitude assumption). */
static inline CrFloatPair
cr_pair_add2 (CrFloatPair a,
              CrFloatPair b)
{
  CrFloatPair r;
  float v;

  r.hi = a.hi + b.hi;
  v = r.hi - a.hi;
  r.lo = (a.hi - (r.hi - v)) + (b.hi - v);
  r.lo = r.lo + (a.lo + b.lo);
  return r;
}

/* a + b for a pair and a float, SLEEF's dfadd2. */
static inline CrFloatPair
cr_pair_add2_f (CrFloatPair a,
                float       b)
{
  CrFloatPair r;
  float v;

  r.hi = a.hi + b;
  v = r.hi - a.hi;
  r.lo = (a.hi - (r.hi - v)) + (b - v);
  r.lo = r.lo + a.lo;
  return r;
}

static inline CrFloatPair
cr_pair_mul (CrFloatPair a,
             CrFloatPair b)
{
  CrFloatPair r;

  r.hi = a.hi * b.hi;
  r.lo = fmaf (a.hi, b.lo, fmaf (a.lo, b.hi, fmaf (a.hi, b.hi, -r.hi)));
  return r;
}

/* tanh as SLEEF's tanhf_u10: e^|x| as a pair (expk2f), then
 * (e - 1/e) / (e + 1/e) in pairs. */
static inline G_ALWAYS_INLINE float
cr_torch_tanhf (float x)
{
  /* Clamped (NaN too) so that every step is defined; the clamped arguments
   * are replaced at the end. */
  float y = fabsf (x), n, w, u, t, inv, p0, p1, res;
  CrFloatPair d, s, r, e, num, den, q;
  int k, half;

  y = y < 8.664339742f ? y : 8.664339742f;

  /* expk2f of (y, 0) */
  n = rintf (y * 1.442695040888963407359924681001892137426645954152985934135449406931f);
  k = (int) n;
  d.hi = y;
  d.lo = 0.0f;
  s = cr_pair_add2_f (d, n * -0.693145751953125f);
  s = cr_pair_add2_f (s, n * -1.428606765330187045e-06f);
  u = 0.1980960224e-3f;
  u = fmaf (u, s.hi, 0.1394256484e-2f);
  u = fmaf (u, s.hi, 0.8333456703e-2f);
  u = fmaf (u, s.hi, 0.4166637361e-1f);
  r.hi = s.hi * u;
  r.lo = fmaf (s.lo, u, fmaf (s.hi, u, -r.hi));
  r = cr_pair_add2_f (r, 0.166666659414234244790680580464e+0f);
  r = cr_pair_add2_f (cr_pair_mul (s, r), 0.5f);
  r = cr_pair_add2 (s, cr_pair_mul (cr_pair_mul (s, s), r));
  t = 1.0f + r.hi;
  w = ((1.0f - t) + r.hi) + r.lo;
  half = k >> 1;
  p0 = cr_pow2if (half);
  p1 = cr_pow2if (k - half);
  e.hi = t * p0 * p1;
  e.lo = w * p0 * p1;
  /* 1/e as a pair */
  inv = 1.0f / e.hi;
  r.hi = inv;
  r.lo = inv * fmaf (-e.lo, inv, fmaf (-e.hi, inv, 1.0f));
  /* num = e - 1/e, den = e + 1/e (dfadd: |e| >= |1/e|) */
  num.hi = e.hi + -r.hi;
  num.lo = (((e.hi - num.hi) + -r.hi) + e.lo) + -r.lo;
  den.hi = e.hi + r.hi;
  den.lo = (((e.hi - den.hi) + r.hi) + e.lo) + r.lo;
  /* q = num / den */
  inv = 1.0f / den.hi;
  q.hi = num.hi * inv;
  u = fmaf (inv, num.hi, -q.hi);
  q.lo = fmaf (-den.lo, inv, fmaf (-den.hi, inv, 1.0f));
  q.lo = fmaf (q.hi, q.lo, fmaf (num.lo, inv, u));
  res = copysignf (q.hi + q.lo, x);
  res = fabsf (x) > 8.664339742f ? copysignf (1.0f, x) : res;
  return x != x ? x : res;
}
