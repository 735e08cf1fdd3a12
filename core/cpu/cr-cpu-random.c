/* cr-cpu-random.c — the seeded generator behind torch.manual_seed, randn, rand
 * and randint.
 *
 * xoshiro256** (Blackman and Vigna) seeded through splitmix64; normals by
 * Box-Muller. The numbers differ from PyTorch's (its Mersenne Twister streams
 * are not part of what a script can rely on) but a seed always gives the same
 * numbers: the generator is integer arithmetic and the float32 transform uses
 * the deterministic functions of cr-cpu-vecmath.h, identical on every machine
 * and vector width. Random tensors are made on the CPU (one stream for every
 * device) and copied to another device by the caller.
 *
 * A generator is not thread-safe: each script run owns its own. */
#include "cr-cpu-private.h"
#include "cr-cpu-vecmath.h"

#include <math.h>

/* The seed a generator has before any manual_seed: PyTorch's default
 * (default_rng_seed_val). */
#define CR_DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)

struct _CrGenerator {
  guint64 state[4];
  guint64 seed;
};

static inline guint64
rotl (guint64 x,
      int     k)
{
  return (x << k) | (x >> (64 - k));
}

static inline guint64
next_u64 (CrGenerator *gen)
{
  guint64 *s = gen->state;
  guint64 result = rotl (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

static inline guint64
splitmix64 (guint64 *x)
{
  guint64 z = (*x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
cr_generator_seed (CrGenerator *gen,
                   guint64      seed)
{
  guint64 x = seed;

  g_return_if_fail (gen != NULL);
  gen->seed = seed;
  for (int i = 0; i < 4; i++)
    gen->state[i] = splitmix64 (&x);
}

CrGenerator *
cr_generator_new (guint64 seed)
{
  CrGenerator *gen = g_new0 (CrGenerator, 1);

  cr_generator_seed (gen, seed);
  return gen;
}

CrGenerator *
cr_generator_new_default (void)
{
  return cr_generator_new (CR_DEFAULT_SEED);
}

void
cr_generator_free (CrGenerator *gen)
{
  g_free (gen);
}

guint64
cr_generator_initial_seed (const CrGenerator *gen)
{
  return gen->seed;
}

/* ---- transforms ------------------------------------------------------------ */

/* Uniform [0, 1) with 24 / 53 random bits. */
static inline float
u01_f (guint64 r)
{
  return (float) (r >> 40) * (1.0f / 16777216.0f);
}

static inline double
u01_d (guint64 r)
{
  return (double) (r >> 11) * (1.0 / 9007199254740992.0);
}

/* Box-Muller on pairs of raw 32-bit draws, vectorised: u1 in (0, 1] for the
 * radius, and the angle 2*pi*u2 taken apart into a quadrant (exact: u2 * 4)
 * and a remainder in [-pi/4, pi/4) for the sin/cos polynomials. */
CR_VEC_CLONES static void
box_muller_f32 (gint64         n_pairs,
                const guint32 *bits,
                float         *out)
{
  for (gint64 i = 0; i < n_pairs; i++)
    {
      float u1 = ((float) (bits[2 * i] >> 8) + 1.0f) * (1.0f / 16777216.0f);
      float u2 = (float) (bits[2 * i + 1] >> 8) * (1.0f / 16777216.0f);
      float radius = sqrtf (-2.0f * cr_vlogf (u1));
      float q4 = u2 * 4.0f;
      float qr = (q4 + 12582912.0f) - 12582912.0f;    /* round to nearest */
      gint32 quadrant = (gint32) qr & 3;
      float phi = (q4 - qr) * 1.57079632679489662f;
      float s = cr_vsinf_reduced (phi);
      float c = cr_vcosf_reduced (phi);
      float sin_t = quadrant == 0 ? s : quadrant == 1 ? c : quadrant == 2 ? -s : -c;
      float cos_t = quadrant == 0 ? c : quadrant == 1 ? -s : quadrant == 2 ? -c : s;

      out[2 * i] = radius * cos_t;
      out[2 * i + 1] = radius * sin_t;
    }
}

static CrTensor *
new_random (const gint64  *shape,
            int            ndim,
            CrDType        dtype,
            GError       **error)
{
  return cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);
}

static gboolean
check_float (CrDType       dtype,
             const char   *kernel,
             GError      **error)
{
  if (cr_dtype_is_floating (dtype))
    return TRUE;
  cr_cpu_set_not_implemented (error, kernel, dtype);
  return FALSE;
}

CrTensor *
cr_kernel_randn (CrGenerator   *gen,
                 const gint64  *shape,
                 int            ndim,
                 CrDType        dtype,
                 GError       **error)
{
  CrTensor *out;
  gint64 n;

  g_return_val_if_fail (gen != NULL, NULL);
  if (!check_float (dtype, "normal_kernel_cpu", error))
    return NULL;
  out = new_random (shape, ndim, dtype, error);
  if (out == NULL)
    return NULL;
  n = out->numel;

  if (dtype == CR_DTYPE_FLOAT32)
    {
      float *o = cr_tensor_data (out);
      guint32 bits[512];
      float pair_out[512];

      for (gint64 i = 0; i < n; i += 512)
        {
          gint64 len = MIN (512, n - i);
          gint64 pairs = (len + 1) / 2;

          for (gint64 j = 0; j < pairs; j++)
            {
              guint64 r = next_u64 (gen);

              bits[2 * j] = (guint32) r;
              bits[2 * j + 1] = (guint32) (r >> 32);
            }
          box_muller_f32 (pairs, bits, pair_out);
          memcpy (o + i, pair_out, sizeof (float) * len);
        }
    }
  else
    {
      double *o = cr_tensor_data (out);

      for (gint64 i = 0; i < n; i += 2)
        {
          double u1 = 1.0 - u01_d (next_u64 (gen));     /* (0, 1] */
          double u2 = u01_d (next_u64 (gen));
          double radius = sqrt (-2.0 * log (u1));
          double theta = 2.0 * G_PI * u2;

          o[i] = radius * cos (theta);
          if (i + 1 < n)
            o[i + 1] = radius * sin (theta);
        }
    }
  return out;
}

CrTensor *
cr_kernel_rand (CrGenerator   *gen,
                const gint64  *shape,
                int            ndim,
                CrDType        dtype,
                GError       **error)
{
  CrTensor *out;

  g_return_val_if_fail (gen != NULL, NULL);
  if (!check_float (dtype, "uniform", error))
    return NULL;
  out = new_random (shape, ndim, dtype, error);
  if (out == NULL)
    return NULL;

  if (dtype == CR_DTYPE_FLOAT32)
    {
      float *o = cr_tensor_data (out);

      for (gint64 i = 0; i < out->numel; i++)
        o[i] = u01_f (next_u64 (gen));
    }
  else
    {
      double *o = cr_tensor_data (out);

      for (gint64 i = 0; i < out->numel; i++)
        o[i] = u01_d (next_u64 (gen));
    }
  return out;
}

CrTensor *
cr_kernel_randint (CrGenerator   *gen,
                   gint64         low,
                   gint64         high,
                   const gint64  *shape,
                   int            ndim,
                   GError       **error)
{
  CrTensor *out;
  guint64 range;
  gint64 *o;

  g_return_val_if_fail (gen != NULL, NULL);
  if (low >= high)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
                   " >= to=%" G_GINT64_FORMAT, low, high);
      return NULL;
    }
  out = new_random (shape, ndim, CR_DTYPE_INT64, error);
  if (out == NULL)
    return NULL;

  /* Lemire's multiply-shift: the high word of r * range, bias below 2^-64 * range. */
  range = (guint64) high - (guint64) low;
  o = cr_tensor_data (out);
  for (gint64 i = 0; i < out->numel; i++)
    {
      unsigned __int128 m = (unsigned __int128) next_u64 (gen) * range;

      o[i] = low + (gint64) (guint64) (m >> 64);
    }
  return out;
}
