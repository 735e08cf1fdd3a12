/* test-random.c — the CPU generator (cpu/cr-random.h) bit for bit.
 *
 * The raw mt19937 stream against the reference values of MT19937 (those of
 * std::mt19937 too), and samples against the bits PyTorch 1.13 gives for the
 * same seed (printed by /usr/bin/python3: torch.manual_seed(0), then the
 * expression in the comment, each float as its IEEE bits). */
#include <math.h>
#include <string.h>

#include "cr-kernels.h"
#include "cr-mt19937.h"
#include "cr-error.h"

static guint32
float_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, 4);
  return u;
}

static guint64
double_bits (double d)
{
  guint64 u;

  memcpy (&u, &d, 8);
  return u;
}

static void
test_mt19937_stream (void)
{
  CrMt19937 mt;
  guint32 last = 0;

  /* The reference stream of the default seed 5489. */
  cr_mt19937_seed (&mt, 5489);
  g_assert_cmpuint (cr_mt19937_next (&mt), ==, 3499211612u);
  g_assert_cmpuint (cr_mt19937_next (&mt), ==, 581869302u);
  g_assert_cmpuint (cr_mt19937_next (&mt), ==, 3890346734u);
  /* The C++ standard's check of mt19937: the 10000th draw. */
  cr_mt19937_seed (&mt, 5489);
  for (int i = 0; i < 10000; i++)
    last = cr_mt19937_next (&mt);
  g_assert_cmpuint (last, ==, 4123659995u);
  /* Seed 0, the first draws (torch.randperm(3) swaps by them). */
  cr_mt19937_seed (&mt, 0);
  g_assert_cmpuint (cr_mt19937_next (&mt), ==, 2357136044u);
  g_assert_cmpuint (cr_mt19937_next (&mt), ==, 2546248239u);
  /* Only the low 32 bits of the seed reach the engine; all 64 are kept. */
  cr_mt19937_seed (&mt, G_GUINT64_CONSTANT (0x100000000));
  g_assert_cmpuint (mt.seed, ==, G_GUINT64_CONSTANT (0x100000000));
  g_assert_cmpuint (cr_mt19937_next (&mt), ==, 2357136044u);
  g_assert_true (cr_mt19937_is_valid (&mt));
}

static CrTensor *
new_filled (CrGenerator *gen,
            gint64       n,
            CrDType      dtype)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t = cr_kernel_randn (gen, &n, 1, dtype, &error);

  g_assert_no_error (error);
  return t;
}

static void
test_normal_bits (void)
{
  CrGenerator *gen = cr_generator_new (0);
  /* torch.randn(20): the vectorised path, 16 plus the last 16 again. */
  static const guint32 randn20[] = {
    0xbf901b85, 0xbf93808a, 0xbe804bd6, 0xbede255d, 0x3f194d8b, 0xbfc70d5b, 0xbeaec6ca,
    0x3fed2f4e, 0x3eefaa55, 0xbe217f5f, 0x3fb8c9db, 0x3e8837a1, 0x3fb1d6c0, 0x3fcb0d00,
    0x3f72409c, 0xbf57fb33, 0x3f6e8c30, 0x3fa12737, 0x4000519a, 0x3d5c1b3a,
  };
  /* then torch.randn(3): scalar Box-Muller in double. */
  static const guint32 randn3[] = { 0xbf6459ce, 0xbfc12a71, 0x3ebda439 };
  /* then torch.randn(17, dtype=torch.float64): [:4] and [-2:] */
  static const guint64 randn17d[] = {
    G_GUINT64_CONSTANT (0x3fc6ae2402b7b62b), G_GUINT64_CONSTANT (0x3feda3b24012ae8b),
    G_GUINT64_CONSTANT (0x3fe9811b26a8e089), G_GUINT64_CONSTANT (0x3fcb17cfd889a214),
    G_GUINT64_CONSTANT (0xbfb6090529122e74), G_GUINT64_CONSTANT (0xbfff613ef5cf2939),
  };
  /* then torch.randn(3, dtype=torch.float64): the first uses the sample
   * cached by randn(3) above. */
  static const guint64 randn3d[] = {
    G_GUINT64_CONSTANT (0x3ff74dd5ad6b407c), G_GUINT64_CONSTANT (0xbfeab935dcefdca3),
    G_GUINT64_CONSTANT (0x3fef89920e08b7a8),
  };
  g_autoptr(CrTensor) a = new_filled (gen, 20, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) b = new_filled (gen, 3, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) c = new_filled (gen, 17, CR_DTYPE_FLOAT64);
  g_autoptr(CrTensor) d = new_filled (gen, 3, CR_DTYPE_FLOAT64);
  const float *av = cr_tensor_data (a), *bv = cr_tensor_data (b);
  const double *cv = cr_tensor_data (c), *dv = cr_tensor_data (d);

  for (int i = 0; i < 20; i++)
    g_assert_cmphex (float_bits (av[i]), ==, randn20[i]);
  for (int i = 0; i < 3; i++)
    g_assert_cmphex (float_bits (bv[i]), ==, randn3[i]);
  for (int i = 0; i < 4; i++)
    g_assert_cmphex (double_bits (cv[i]), ==, randn17d[i]);
  g_assert_cmphex (double_bits (cv[15]), ==, randn17d[4]);
  g_assert_cmphex (double_bits (cv[16]), ==, randn17d[5]);
  for (int i = 0; i < 3; i++)
    g_assert_cmphex (double_bits (dv[i]), ==, randn3d[i]);
  cr_generator_free (gen);
}

static void
test_state_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  CrGenerator *gen = cr_generator_new (7);
  CrGenerator *other = cr_generator_new_default ();
  guint8 state[CR_GENERATOR_STATE_SIZE];
  guint8 again[CR_GENERATOR_STATE_SIZE];
  g_autoptr(CrTensor) t1 = NULL;
  g_autoptr(CrTensor) t2 = NULL;

  /* One scalar normal leaves its partner cached: the state must carry it. */
  g_clear_pointer (&t1, cr_tensor_unref);
  t1 = new_filled (gen, 1, CR_DTYPE_FLOAT32);
  cr_generator_get_state (gen, state);
  /* PyTorch's layout: the seed first, left (625 less the 4 draws of one
   * double Box-Muller pair) and seeded, the flag of the cached double
   * normal at 5040. */
  g_assert_cmpuint (state[0], ==, 7);
  g_assert_cmpuint (state[8] | (state[9] << 8), ==, 621);
  g_assert_cmpuint (state[12], ==, 1);
  g_assert_cmpuint (state[5040], ==, 1);
  g_assert_true (cr_generator_set_state (other, state, sizeof state, &error));
  g_assert_no_error (error);
  cr_generator_get_state (other, again);
  g_assert_cmpmem (state, sizeof state, again, sizeof again);
  g_clear_pointer (&t1, cr_tensor_unref);
  t1 = new_filled (gen, 40, CR_DTYPE_FLOAT64);
  t2 = new_filled (other, 40, CR_DTYPE_FLOAT64);
  g_assert_cmpmem (cr_tensor_data (t1), 40 * 8, cr_tensor_data (t2), 40 * 8);
  g_assert_cmpuint (cr_generator_initial_seed (other), ==, 7);

  /* The legacy size is accepted; others are refused with PyTorch's text. */
  g_assert_true (cr_generator_set_state (other, state, CR_GENERATOR_LEGACY_STATE_SIZE, &error));
  g_assert_false (cr_generator_set_state (other, state, 10, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "Expected either a CPUGeneratorImplStateLegacy of size 5048 or a "
                   "CPUGeneratorImplState of size 5056 but found the input RNG state size "
                   "to be 10");
  g_clear_error (&error);
  /* left out of range: an invalid engine, the generator unchanged. */
  memset (state + 8, 0, 4);
  g_assert_false (cr_generator_set_state (other, state, sizeof state, &error));
  g_assert_cmpstr (error->message, ==, "Invalid mt19937 state");
  cr_generator_free (gen);
  cr_generator_free (other);
}

static void
test_randperm (void)
{
  g_autoptr(GError) error = NULL;
  CrGenerator *gen = cr_generator_new (0);
  /* torch.manual_seed(0); torch.randperm(10) */
  static const gint64 expected[] = { 4, 1, 7, 5, 3, 9, 0, 8, 6, 2 };
  g_autoptr(CrTensor) p = cr_random_randperm (gen, 10, CR_DTYPE_INT64, &error);

  g_assert_no_error (error);
  g_assert_cmpmem (cr_tensor_data (p), sizeof expected, expected, sizeof expected);
  cr_generator_free (gen);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/random/mt19937-stream", test_mt19937_stream);
  g_test_add_func ("/core/random/normal-bits", test_normal_bits);
  g_test_add_func ("/core/random/state-round-trip", test_state_round_trip);
  g_test_add_func ("/core/random/randperm", test_randperm);
  return g_test_run ();
}
