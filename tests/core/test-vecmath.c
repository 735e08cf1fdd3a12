/* test-vecmath.c — the vectorised exp/log/tanh/sigmoid of cpu/cr-cpu-vecmath.h
 * against libm over wide ranges, through the unary kernel (so the vectorised
 * loops, not just the scalar functions, are what is measured). */
#include <float.h>
#include <math.h>

#include "cr-kernels.h"
#include "cr-cpu-vecmath.h"

/* Distance in units in the last place of float32 (exact result in double). */
static double
ulp_error_f (float  got,
             double exact)
{
  float r = (float) exact;
  double ulp;

  if (isnan (exact))
    return isnan (got) ? 0 : INFINITY;
  if (isinf (r))
    return got == r ? 0 : INFINITY;
  ulp = fabs (r) < FLT_MIN ? 1.401298464324817e-45 : (double) (nextafterf (fabsf (r), INFINITY) - fabsf (r));
  return fabs ((double) got - exact) / ulp;
}

static void
test_vecmath_float (void)
{
  const gint64 n = 200000;
  g_autoptr(CrTensor) x = cr_tensor_new_empty (&n, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) pos = cr_tensor_new_empty (&n, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  float *xv = cr_tensor_data (x);
  float *pv = cr_tensor_data (pos);
  static const CrUnaryOp ops[] = { CR_UNARY_EXP, CR_UNARY_LOG, CR_UNARY_TANH, CR_UNARY_SIGMOID };

  /* Wide ranges: |x| up to 100 (exp over/underflow, subnormal results), and
   * positive numbers over 2^-149 .. 2^127 for log. */
  for (gint64 i = 0; i < n; i++)
    {
      double t = (double) i / (double) n;

      xv[i] = (float) ((t * 2 - 1) * (i % 3 == 0 ? 105.0 : i % 3 == 1 ? 12.0 : 1.0));
      pv[i] = (float) ldexp (0.5 + t, (int) (i % 277) - 149);
    }
  xv[0] = INFINITY; xv[1] = -INFINITY; xv[2] = NAN; xv[3] = 0.0f; xv[4] = -0.0f;
  xv[5] = 88.7f; xv[6] = -87.5f; xv[7] = -103.0f; xv[8] = 1e-30f;
  pv[0] = INFINITY; pv[1] = 0.0f; pv[2] = NAN; pv[3] = -1.0f; pv[4] = 1.0f; pv[5] = 1e-45f;

  for (guint k = 0; k < G_N_ELEMENTS (ops); k++)
    {
      const CrTensor *in = ops[k] == CR_UNARY_LOG ? pos : x;
      g_autoptr(CrTensor) y = cr_kernel_unary (ops[k], in, NULL);
      const float *iv = cr_tensor_data (in);
      const float *yv = cr_tensor_data (y);
      double worst = 0;

      for (gint64 i = 0; i < n; i++)
        {
          double v = iv[i], exact, e;

          switch (ops[k])
            {
            case CR_UNARY_EXP:  exact = exp (v); break;
            case CR_UNARY_LOG:  exact = log (v); break;
            case CR_UNARY_TANH: exact = tanh (v); break;
            default:
              /* PyTorch's formula 1 / (1 + exp(-x)) in float32 gives 0 below
               * -88.7 (exp overflows); compare the rest. */
              if (v < -88.0)
                {
                  g_assert_cmpfloat (yv[i], <, 1e-38);
                  continue;
                }
              exact = 1.0 / (1.0 + exp (-v));
              break;
            }
          e = ulp_error_f (yv[i], exact);
          if (e > worst)
            worst = e;
          if (e > 3.0)
            g_error ("op %d at x=%.9g: got %.9g, libm %.9g (%.1f ulp)", ops[k], v, yv[i], exact, e);
        }
      g_test_message ("op %d: worst %.2f ulp", ops[k], worst);
    }
}

static void
test_vecmath_double (void)
{
  const int n = 100000;
  double worst[3] = { 0 };

  for (int i = 0; i < n; i++)
    {
      double t = (double) i / n;
      double x = (t * 2 - 1) * (i % 3 == 0 ? 740.0 : i % 3 == 1 ? 20.0 : 1.0);
      double p = ldexp (0.5 + t, i % 2000 - 1000);
      double got[3] = { cr_vexp (x), cr_vlog (p), cr_vtanh (x) };
      long double exact[3] = { expl (x), logl (p), tanhl (x) };

      for (int k = 0; k < 3; k++)
        {
          double r = (double) exact[k];
          double ulp = fabs (r) < DBL_MIN ? 4.9406564584124654e-324 : nextafter (fabs (r), INFINITY) - fabs (r);
          double e = (double) (fabsl ((long double) got[k] - exact[k]) / ulp);

          if (r == 0 && got[k] == 0)
            e = 0;
          if (e > worst[k])
            worst[k] = e;
        }
    }
  g_assert_cmpfloat (worst[0], <=, 2.5);
  g_assert_cmpfloat (worst[1], <=, 2.0);
  g_assert_cmpfloat (worst[2], <=, 2.0);

  g_assert_cmpfloat (cr_vexp (INFINITY), ==, INFINITY);
  g_assert_cmpfloat (cr_vexp (-INFINITY), ==, 0.0);
  g_assert_true (isnan (cr_vexp (NAN)));
  g_assert_cmpfloat (cr_vexp (710.0), ==, INFINITY);
  g_assert_cmpfloat (cr_vexp (-745.0), >, 0.0);     /* subnormal */
  g_assert_cmpfloat (cr_vlog (0.0), ==, -INFINITY);
  g_assert_true (isnan (cr_vlog (-1.0)));
  g_assert_cmpfloat (cr_vlog (INFINITY), ==, INFINITY);
  g_assert_cmpfloat (cr_vlog (4.9406564584124654e-324), ==, log (4.9406564584124654e-324));
  g_assert_cmpfloat (cr_vtanh (INFINITY), ==, 1.0);
  g_assert_cmpfloat (cr_vtanh (-1000.0), ==, -1.0);
  g_assert_cmpfloat (cr_vsigmoid (-1000.0), ==, 0.0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/vecmath/float", test_vecmath_float);
  g_test_add_func ("/core/vecmath/double", test_vecmath_double);
  return g_test_run ();
}
