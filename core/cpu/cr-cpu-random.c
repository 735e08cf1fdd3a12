/* cr-cpu-random.c — the CPU generator: PyTorch's CPUGeneratorImpl, state and all.
 *
 * A seeded mt19937 plus the Box-Muller sample PyTorch caches between two
 * scalar normals (one for float, one for double). get_state/set_state use
 * PyTorch's byte layout, so torch.get_rng_state() has its size and its
 * bytes. The sampling itself is in cr-cpu-sampling.c. */
#include "cr-cpu-private.h"
#include "cr-random-private.h"

#include <math.h>
#include <string.h>

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
  return cr_generator_new (CR_GENERATOR_DEFAULT_SEED);
}

void
cr_generator_free (CrGenerator *gen)
{
  g_free (gen);
}

void
cr_generator_seed (CrGenerator *gen,
                   guint64      seed)
{
  g_return_if_fail (gen != NULL);
  cr_mt19937_seed (&gen->engine, seed);
  gen->has_next_float_normal = FALSE;
  gen->has_next_double_normal = FALSE;
  gen->next_float_normal = 0.0f;
  gen->next_double_normal = 0.0;
}

guint64
cr_generator_initial_seed (const CrGenerator *gen)
{
  return gen->engine.seed;
}

void
cr_generator_copy_state (CrGenerator       *dest,
                         const CrGenerator *src)
{
  *dest = *src;
}

guint32
cr_generator_random (CrGenerator *gen)
{
  return cr_mt19937_next (&gen->engine);
}

guint64
cr_generator_random64 (CrGenerator *gen)
{
  guint64 hi = cr_mt19937_next (&gen->engine);
  guint64 lo = cr_mt19937_next (&gen->engine);

  return (hi << 32) | lo;
}

/* ---- state bytes --------------------------------------------------------
 *
 * PyTorch's CPUGeneratorImplState on x86-64: its legacy part (the TH
 * generator's struct, state words widened to 64 bits, the double normal in
 * normal_y) then the float normal and its flag. Offsets in bytes: */
enum {
  STATE_SEED = 0,                     /* uint64 */
  STATE_LEFT = 8,                     /* int */
  STATE_SEEDED = 12,                  /* int */
  STATE_NEXT = 16,                    /* uint64 */
  STATE_WORDS = 24,                   /* uint64[624] */
  STATE_NORMAL_X = STATE_WORDS + 8 * CR_MT19937_N,  /* double, 0 */
  STATE_NORMAL_Y = STATE_NORMAL_X + 8,              /* double: the cached normal */
  STATE_NORMAL_RHO = STATE_NORMAL_Y + 8,            /* double, 0 */
  STATE_NORMAL_VALID = STATE_NORMAL_RHO + 8,        /* int */
  STATE_FLOAT_NORMAL = 5048,          /* float */
  STATE_FLOAT_NORMAL_VALID = 5052,    /* bool */
};

G_STATIC_ASSERT (STATE_NORMAL_VALID + 4 + 4 == CR_GENERATOR_LEGACY_STATE_SIZE);
G_STATIC_ASSERT (STATE_FLOAT_NORMAL == CR_GENERATOR_LEGACY_STATE_SIZE);

static void
put_u64 (guint8  *out,
         gsize    at,
         guint64  v)
{
  v = GUINT64_TO_LE (v);
  memcpy (out + at, &v, 8);
}

static void
put_u32 (guint8  *out,
         gsize    at,
         guint32  v)
{
  v = GUINT32_TO_LE (v);
  memcpy (out + at, &v, 4);
}

static guint64
get_u64 (const guint8 *in,
         gsize         at)
{
  guint64 v;

  memcpy (&v, in + at, 8);
  return GUINT64_FROM_LE (v);
}

static guint32
get_u32 (const guint8 *in,
         gsize         at)
{
  guint32 v;

  memcpy (&v, in + at, 4);
  return GUINT32_FROM_LE (v);
}

void
cr_generator_get_state (const CrGenerator *gen,
                        guint8            *out)
{
  const CrMt19937 *mt = &gen->engine;

  memset (out, 0, CR_GENERATOR_STATE_SIZE);
  put_u64 (out, STATE_SEED, mt->seed);
  put_u32 (out, STATE_LEFT, (guint32) mt->left);
  put_u32 (out, STATE_SEEDED, mt->seeded ? 1 : 0);
  put_u64 (out, STATE_NEXT, mt->next);
  for (int i = 0; i < CR_MT19937_N; i++)
    put_u64 (out, STATE_WORDS + 8 * i, mt->state[i]);
  if (gen->has_next_double_normal)
    {
      guint64 bits;

      memcpy (&bits, &gen->next_double_normal, 8);
      put_u64 (out, STATE_NORMAL_Y, bits);
      put_u32 (out, STATE_NORMAL_VALID, 1);
    }
  if (gen->has_next_float_normal)
    {
      guint32 bits;

      memcpy (&bits, &gen->next_float_normal, 4);
      put_u32 (out, STATE_FLOAT_NORMAL, bits);
      out[STATE_FLOAT_NORMAL_VALID] = 1;
    }
}

gboolean
cr_generator_set_state (CrGenerator   *gen,
                        const guint8  *bytes,
                        gsize          n_bytes,
                        GError       **error)
{
  CrGenerator next = { 0 };
  CrMt19937 *mt = &next.engine;

  if (n_bytes != CR_GENERATOR_STATE_SIZE && n_bytes != CR_GENERATOR_LEGACY_STATE_SIZE)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected either a CPUGeneratorImplStateLegacy of size %d or a "
                   "CPUGeneratorImplState of size %d but found the input RNG state size to be %"
                   G_GSIZE_FORMAT, CR_GENERATOR_LEGACY_STATE_SIZE, CR_GENERATOR_STATE_SIZE,
                   n_bytes);
      return FALSE;
    }
  mt->seed = get_u64 (bytes, STATE_SEED);
  mt->left = (gint32) get_u32 (bytes, STATE_LEFT);
  mt->seeded = get_u32 (bytes, STATE_SEEDED) != 0;
  mt->next = (guint32) get_u64 (bytes, STATE_NEXT);
  for (int i = 0; i < CR_MT19937_N; i++)
    mt->state[i] = (guint32) get_u64 (bytes, STATE_WORDS + 8 * i);
  if (get_u32 (bytes, STATE_NORMAL_VALID) != 0)
    {
      guint64 bits = get_u64 (bytes, n_bytes == CR_GENERATOR_STATE_SIZE ? STATE_NORMAL_Y
                                                                        : STATE_NORMAL_X);
      double x;

      memcpy (&x, &bits, 8);
      next.has_next_double_normal = TRUE;
      if (n_bytes == CR_GENERATOR_STATE_SIZE)
        next.next_double_normal = x;
      else
        {
          /* The legacy layout kept Box-Muller's inputs: rho and the angle's
           * uniform; the cached sample is the sine one. */
          guint64 rho_bits = get_u64 (bytes, STATE_NORMAL_RHO);
          double rho;

          memcpy (&rho, &rho_bits, 8);
          next.next_double_normal = rho * sin (2.0 * G_PI * x);
        }
    }
  if (n_bytes == CR_GENERATOR_STATE_SIZE && bytes[STATE_FLOAT_NORMAL_VALID] != 0)
    {
      guint32 bits = get_u32 (bytes, STATE_FLOAT_NORMAL);

      memcpy (&next.next_float_normal, &bits, 4);
      next.has_next_float_normal = TRUE;
    }
  if (!cr_mt19937_is_valid (mt))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Invalid mt19937 state");
      return FALSE;
    }
  *gen = next;
  return TRUE;
}

/* ---- new random tensors ---------------------------------------------- */

static CrTensor *
new_filled (CrGenerator   *gen,
            const gint64  *shape,
            int            ndim,
            CrDType        dtype,
            gboolean       normal,
            GError       **error)
{
  CrTensor *out;

  g_return_val_if_fail (gen != NULL, NULL);
  out = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  if (!(normal ? cr_random_normal_ (gen, out, 0.0, 1.0, error)
               : cr_random_uniform_ (gen, out, 0.0, 1.0, error)))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

CrTensor *
cr_kernel_randn (CrGenerator   *gen,
                 const gint64  *shape,
                 int            ndim,
                 CrDType        dtype,
                 GError       **error)
{
  return new_filled (gen, shape, ndim, dtype, TRUE, error);
}

CrTensor *
cr_kernel_rand (CrGenerator   *gen,
                const gint64  *shape,
                int            ndim,
                CrDType        dtype,
                GError       **error)
{
  return new_filled (gen, shape, ndim, dtype, FALSE, error);
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

  g_return_val_if_fail (gen != NULL, NULL);
  if (low >= high)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
                   " >= to=%" G_GINT64_FORMAT, low, high);
      return NULL;
    }
  out = cr_tensor_new_empty (shape, ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (out != NULL
      && !cr_random_from_to_ (gen, out, low, (guint64) high - (guint64) low, error))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}
