/* test-kernels.c — the CPU kernels (cpu/cr-kernels.h) against PyTorch 1.13.
 *
 * Every expected number was printed by /usr/bin/python3 with torch 1.13 for the
 * same inputs (the torch expression is in the comment above each case); errors
 * are compared by exception type and exact message. */
#include <math.h>
#include <string.h>

#include "cr-kernels.h"
#include "cr-error.h"

/* ---- helpers ------------------------------------------------------------ */

static CrTensor *
make (CrDType       dtype,
      int           ndim,
      const gint64 *shape,
      const double *values)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, &error);

  g_assert_no_error (error);
  for (gint64 i = 0; i < t->numel; i++)
    cr_tensor_set_flat (t, i, values[i]);
  return t;
}

#define F32(nd, shp, ...) make (CR_DTYPE_FLOAT32, nd, (const gint64[]) shp, (const double[]) __VA_ARGS__)
#define F64(nd, shp, ...) make (CR_DTYPE_FLOAT64, nd, (const gint64[]) shp, (const double[]) __VA_ARGS__)
#define I64(nd, shp, ...) make (CR_DTYPE_INT64, nd, (const gint64[]) shp, (const double[]) __VA_ARGS__)
#define BOOL(nd, shp, ...) make (CR_DTYPE_BOOL, nd, (const gint64[]) shp, (const double[]) __VA_ARGS__)
#define S(...) { __VA_ARGS__ }

static CrTensor *
scalar (double  value,
        CrDType dtype,
        gboolean wrapped)
{
  CrTensor *t = cr_tensor_new_scalar (value, dtype);

  t->is_wrapped_number = wrapped;
  return t;
}

/* Compares t's dtype, shape and values; floats within rel_tol (NaN == NaN). */
static void
check_full (const CrTensor *t,
            CrDType         dtype,
            int             ndim,
            const gint64   *shape,
            const double   *expected,
            double          rel_tol)
{
  g_assert_nonnull (t);
  g_assert_cmpstr (cr_dtype_name (t->dtype), ==, cr_dtype_name (dtype));
  g_assert_cmpint (t->ndim, ==, ndim);
  for (int i = 0; i < ndim; i++)
    g_assert_cmpint (t->shape[i], ==, shape[i]);
  for (gint64 i = 0; i < t->numel; i++)
    {
      double v = cr_tensor_get_flat (t, i);
      double e = expected[i];

      if (isnan (e))
        g_assert_true (isnan (v));
      else if (isinf (e) || rel_tol == 0)
        g_assert_cmpfloat (v, ==, e);
      else
        g_assert_cmpfloat (fabs (v - e), <=, rel_tol * fabs (e) + 1e-30);
    }
}

#define CHECK(t, dtype, nd, shp, ...) \
  check_full (t, dtype, nd, (const gint64[]) shp, (const double[]) __VA_ARGS__, 4e-7)
#define CHECK_EXACT(t, dtype, nd, shp, ...) \
  check_full (t, dtype, nd, (const gint64[]) shp, (const double[]) __VA_ARGS__, 0)

static void
check_error (GError     *error,
             CrException code,
             const char *message)
{
  g_assert_nonnull (error);
  g_assert_error (error, CR_CORE_ERROR, (gint) code);
  g_assert_cmpstr (error->message, ==, message);
}

/* Keeps the test bodies short: runs and frees. */
#define WITH(var, expr) g_autoptr(CrTensor) var = (expr)

/* ---- unary ---------------------------------------------------------------- */

static void
test_unary_float (void)
{
  const double xs[] = { -2.5, -0.5, 0.0, 0.3, 1.7, 20.0 };
  /* x = torch.tensor([-2.5, -0.5, 0.0, 0.3, 1.7, 20.0]); getattr(torch, op)(x).tolist() */
  static const struct {
    CrUnaryOp op;
    double    expected[6];
  } cases[] = {
    { CR_UNARY_NEG, { 2.5, 0.5, -0.0, -0.30000001192092896, -1.7000000476837158, -20.0 } },
    { CR_UNARY_EXP, { 0.08208499848842621, 0.6065306663513184, 1.0, 1.3498587608337402, 5.473947525024414, 485165184.0 } },
    { CR_UNARY_LOG, { NAN, NAN, -INFINITY, -1.2039728164672852, 0.5306282639503479, 2.995732307434082 } },
    { CR_UNARY_SIN, { -0.5984721183776855, -0.4794255495071411, 0.0, 0.29552021622657776, 0.9916647672653198, 0.9129452705383301 } },
    { CR_UNARY_COS, { -0.8011435866355896, 0.8775825500488281, 1.0, 0.9553365111351013, -0.12884454429149628, 0.4080820679664612 } },
    { CR_UNARY_TANH, { -0.9866142868995667, -0.46211716532707214, 0.0, 0.29131263494491577, 0.9354090690612793, 1.0 } },
    { CR_UNARY_SIGMOID, { 0.07585817575454712, 0.3775406777858734, 0.5, 0.5744425058364868, 0.8455348014831543, 1.0 } },
    { CR_UNARY_RELU, { 0.0, 0.0, 0.0, 0.30000001192092896, 1.7000000476837158, 20.0 } },
    { CR_UNARY_SQRT, { NAN, NAN, 0.0, 0.547722578048706, 1.3038405179977417, 4.4721360206604 } },
    { CR_UNARY_RSQRT, { NAN, NAN, INFINITY, 1.8257417678833008, 0.7669649720191956, 0.22360679507255554 } },
    { CR_UNARY_ABS, { 2.5, 0.5, 0.0, 0.30000001192092896, 1.7000000476837158, 20.0 } },
    { CR_UNARY_SIGN, { -1.0, -1.0, 0.0, 1.0, 1.0, 1.0 } },
    { CR_UNARY_RECIPROCAL, { -0.4000000059604645, -2.0, INFINITY, 3.3333332538604736, 0.5882352590560913, 0.05000000074505806 } },
    { CR_UNARY_SQUARE, { 6.25, 0.25, 0.0, 0.09000000357627869, 2.890000104904175, 400.0 } },
    { CR_UNARY_LOG1P, { NAN, -0.6931471824645996, 0.0, 0.2623642683029175, 0.9932518005371094, 3.044522523880005 } },
    { CR_UNARY_EXPM1, { -0.9179149866104126, -0.39346933364868164, 0.0, 0.349858820438385, 4.473947525024414, 485165184.0 } },
    { CR_UNARY_FLOOR, { -3.0, -1.0, 0.0, 0.0, 1.0, 20.0 } },
    { CR_UNARY_CEIL, { -2.0, -0.0, 0.0, 1.0, 2.0, 20.0 } },
    { CR_UNARY_ROUND, { -2.0, -0.0, 0.0, 0.0, 2.0, 20.0 } },
    { CR_UNARY_TAN, { 0.7470223307609558, -0.5463024973869324, 0.0, 0.30933627486228943, -7.696599006652832, 2.2371609210968018 } },
    { CR_UNARY_ATAN, { -1.1902899742126465, -0.46364760398864746, 0.0, 0.29145681858062744, 1.0390722751617432, 1.5208379030227661 } },
    { CR_UNARY_ASIN, { NAN, -0.5235987901687622, 0.0, 0.30469265580177307, NAN, NAN } },
    { CR_UNARY_ACOS, { NAN, 2.094395160675049, 1.5707963705062866, 1.2661036252975464, NAN, NAN } },
    { CR_UNARY_SINH, { -6.050204753875732, -0.5210952758789062, 0.0, 0.30452030897140503, 2.645632028579712, 242582592.0 } },
    { CR_UNARY_COSH, { 6.132289409637451, 1.1276259422302246, 1.0, 1.04533851146698, 2.828315496444702, 242582592.0 } },
    { CR_UNARY_ASINH, { -1.6472312211990356, -0.4812118411064148, 0.0, 0.29567307233810425, 1.3008204698562622, 3.6895039081573486 } },
    { CR_UNARY_ACOSH, { NAN, NAN, NAN, NAN, 1.123231053352356, 3.688253879547119 } },
    { CR_UNARY_ATANH, { NAN, -0.5493061542510986, 0.0, 0.30951961874961853, NAN, NAN } },
    { CR_UNARY_ERF, { -0.9995930194854736, -0.5204998850822449, 0.0, 0.3286267817020416, 0.9837904572486877, 1.0 } },
    { CR_UNARY_ERFC, { 1.9995930194854736, 1.5204999446868896, 1.0, 0.6713732481002808, 0.016209539026021957, 0.0 } },
    { CR_UNARY_EXP2, { 0.1767766922712326, 0.7071067690849304, 1.0, 1.2311444282531738, 3.249009609222412, 1048576.0 } },
    { CR_UNARY_LOG10, { NAN, NAN, -INFINITY, -0.5228787064552307, 0.23044893145561218, 1.3010300397872925 } },
    { CR_UNARY_LOG2, { NAN, NAN, -INFINITY, -1.736965537071228, 0.7655347585678101, 4.321928024291992 } },
    { CR_UNARY_TRUNC, { -2.0, -0.0, 0.0, 0.0, 1.0, 20.0 } },
    { CR_UNARY_FRAC, { -0.5, -0.5, 0.0, 0.30000001192092896, 0.7000000476837158, 0.0 } },
    { CR_UNARY_ERFINV, { NAN, -0.4769362807273865, 0.0, 0.27246272563934326, NAN, NAN } },
    { CR_UNARY_SGN, { -1.0, -1.0, 0.0, 1.0, 1.0, 1.0 } },
    { CR_UNARY_DEG2RAD, { -0.04363323003053665, -0.008726646192371845, 0.0, 0.005235987715423107, 0.02967059798538685, 0.3490658402442932 } },
    { CR_UNARY_RAD2DEG, { -143.2394561767578, -28.647890090942383, 0.0, 17.18873405456543, 97.40283203125, 1145.9156494140625 } },
    { CR_UNARY_SINC, { 0.1273239552974701, 0.6366197466850281, 1.0, 0.858393669128418, -0.15148119628429413, 4.300573053228618e-08 } },
    /* F.hardsigmoid */
    { CR_UNARY_HARDSIGMOID, { 0.0833333358168602, 0.4166666567325592, 0.5, 0.550000011920929, 0.7833333015441895, 1.0 } },
    /* F.hardswish */
    { CR_UNARY_HARDSWISH, { -0.2083333283662796, -0.2083333283662796, 0.0, 0.16500000655651093, 1.3316665887832642, 20.0 } },
    /* F.mish */
    { CR_UNARY_MISH, { -0.19681619107723236, -0.22074376046657562, 0.0, 0.20800139009952545, 1.6207680702209473, 20.0 } },
    /* F.logsigmoid */
    { CR_UNARY_LOG_SIGMOID, { -2.578889846801758, -0.9740769863128662, -0.6931471824645996, -0.5543552041053772, -0.16778601706027985, -2.06115369216775e-09 } },
  };
  g_autoptr(CrTensor) x = make (CR_DTYPE_FLOAT32, 1, (const gint64[]) { 6 }, xs);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CrTensor) y = cr_kernel_unary (cases[c].op, x, &error);

      g_assert_no_error (error);
      check_full (y, CR_DTYPE_FLOAT32, 1, (const gint64[]) { 6 }, cases[c].expected, 4e-7);
    }

  {
    /* torch.logical_not(x) */
    WITH (y, cr_kernel_unary (CR_UNARY_LOGICAL_NOT, x, NULL));
    CHECK_EXACT (y, CR_DTYPE_BOOL, 1, S (6), { 0, 0, 1, 0, 0, 0 });
  }
  {
    /* torch.exp(torch.tensor(1.0, dtype=torch.float64)) == 2.718281828459045 */
    WITH (d, scalar (1.0, CR_DTYPE_FLOAT64, FALSE));
    WITH (y, cr_kernel_unary (CR_UNARY_EXP, d, NULL));
    CHECK (y, CR_DTYPE_FLOAT64, 0, S (0), { 2.718281828459045 });
  }
}

static void
test_unary_dtypes (void)
{
  g_autoptr(GError) error = NULL;
  WITH (i, I64 (1, S (2), { 1, 0 }));
  WITH (b, BOOL (1, S (2), { 1, 0 }));

  {
    /* torch.exp(torch.tensor([1, 0])) -> float32 [2.7182817459106445, 1.0] */
    WITH (y, cr_kernel_unary (CR_UNARY_EXP, i, NULL));
    CHECK (y, CR_DTYPE_FLOAT32, 1, S (2), { 2.7182817459106445, 1.0 });
  }
  {
    /* torch.sqrt(torch.tensor([True, False])) -> float32 [1., 0.] */
    WITH (y, cr_kernel_unary (CR_UNARY_SQRT, b, NULL));
    CHECK (y, CR_DTYPE_FLOAT32, 1, S (2), { 1, 0 });
  }
  {
    /* torch.neg / relu / abs / square / floor keep int64 */
    WITH (y, cr_kernel_unary (CR_UNARY_NEG, i, NULL));
    WITH (r, cr_kernel_unary (CR_UNARY_RELU, y, NULL));
    WITH (a, cr_kernel_unary (CR_UNARY_ABS, y, NULL));
    WITH (f, cr_kernel_unary (CR_UNARY_FLOOR, y, NULL));
    CHECK_EXACT (y, CR_DTYPE_INT64, 1, S (2), { -1, 0 });
    CHECK_EXACT (r, CR_DTYPE_INT64, 1, S (2), { 0, 0 });
    CHECK_EXACT (a, CR_DTYPE_INT64, 1, S (2), { 1, 0 });
    CHECK_EXACT (f, CR_DTYPE_INT64, 1, S (2), { -1, 0 });
  }
  {
    /* torch.square(bool) -> int64; torch.sign(bool) -> bool */
    WITH (sq, cr_kernel_unary (CR_UNARY_SQUARE, b, NULL));
    WITH (sg, cr_kernel_unary (CR_UNARY_SIGN, b, NULL));
    CHECK_EXACT (sq, CR_DTYPE_INT64, 1, S (2), { 1, 0 });
    CHECK_EXACT (sg, CR_DTYPE_BOOL, 1, S (2), { 1, 0 });
  }

  g_assert_null (cr_kernel_unary (CR_UNARY_NEG, b, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
               "to invert a mask, use the `~` or `logical_not()` operator instead.");
  g_clear_error (&error);
  g_assert_null (cr_kernel_unary (CR_UNARY_RELU, b, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "Boolean inputs not supported for relu");
  g_clear_error (&error);
  g_assert_null (cr_kernel_unary (CR_UNARY_ABS, b, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "\"abs_cpu\" not implemented for 'Bool'");
  g_clear_error (&error);

  {
    /* relu(-0.) stays -0.; relu(nan) is nan; sign(nan) is 0 */
    WITH (x, F32 (1, S (2), { -0.0, NAN }));
    WITH (r, cr_kernel_unary (CR_UNARY_RELU, x, NULL));
    WITH (s, cr_kernel_unary (CR_UNARY_SIGN, x, NULL));
    g_assert_true (signbit (cr_tensor_get_flat (r, 0)));
    g_assert_true (isnan (cr_tensor_get_flat (r, 1)));
    CHECK_EXACT (s, CR_DTYPE_FLOAT32, 1, S (2), { 0, 0 });
  }
}

static void
test_unary_strided (void)
{
  /* torch.arange(6.).reshape(2, 3).t().exp() */
  WITH (x, F32 (2, S (2, 3), { 0, 1, 2, 3, 4, 5 }));
  WITH (t, cr_tensor_new_view (x, (const gint64[]) { 3, 2 }, 2, (const gint64[]) { 1, 3 }, 0));
  WITH (y, cr_kernel_unary (CR_UNARY_EXP, t, NULL));

  CHECK (y, CR_DTYPE_FLOAT32, 2, S (3, 2),
         { 1.0, 20.08553695678711, 2.7182817459106445, 54.59815216064453, 7.389056205749512, 148.4131622314453 });
  g_assert_true (cr_tensor_is_contiguous (y));
}

/* ---- binary ----------------------------------------------------------------- */

static void
test_binary_broadcast (void)
{
  /* a = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]); b = torch.tensor([2.0, -0.5, 3.0]);
   * getattr(torch, op)(a, b) */
  static const struct {
    CrBinaryOp op;
    CrDType    dtype;
    double     expected[6];
  } cases[] = {
    { CR_BINARY_ADD, CR_DTYPE_FLOAT32, { 3.5, -2.5, 6.0, 2.5, 3.5, 2.0 } },
    { CR_BINARY_SUB, CR_DTYPE_FLOAT32, { -0.5, -1.5, 0.0, -1.5, 4.5, -4.0 } },
    { CR_BINARY_MUL, CR_DTYPE_FLOAT32, { 3.0, 1.0, 9.0, 1.0, -2.0, -3.0 } },
    { CR_BINARY_DIV, CR_DTYPE_FLOAT32, { 0.75, 4.0, 1.0, 0.25, -8.0, -0.3333333432674408 } },
    { CR_BINARY_POW, CR_DTYPE_FLOAT32, { 2.25, NAN, 27.0, 0.25, 0.5, -1.0 } },
    { CR_BINARY_MAXIMUM, CR_DTYPE_FLOAT32, { 2.0, -0.5, 3.0, 2.0, 4.0, 3.0 } },
    { CR_BINARY_MINIMUM, CR_DTYPE_FLOAT32, { 1.5, -2.0, 3.0, 0.5, -0.5, -1.0 } },
    { CR_BINARY_FLOOR_DIVIDE, CR_DTYPE_FLOAT32, { 0.0, 4.0, 1.0, 0.0, -8.0, -1.0 } },
    { CR_BINARY_REMAINDER, CR_DTYPE_FLOAT32, { 1.5, -0.0, 0.0, 0.5, 0.0, 2.0 } },
    { CR_BINARY_EQ, CR_DTYPE_BOOL, { 0, 0, 1, 0, 0, 0 } },
    { CR_BINARY_NE, CR_DTYPE_BOOL, { 1, 1, 0, 1, 1, 1 } },
    { CR_BINARY_LT, CR_DTYPE_BOOL, { 1, 1, 0, 1, 0, 1 } },
    { CR_BINARY_LE, CR_DTYPE_BOOL, { 1, 1, 1, 1, 0, 1 } },
    { CR_BINARY_GT, CR_DTYPE_BOOL, { 0, 0, 0, 0, 1, 0 } },
    { CR_BINARY_GE, CR_DTYPE_BOOL, { 0, 0, 1, 0, 1, 0 } },
    { CR_BINARY_LOGICAL_AND, CR_DTYPE_BOOL, { 1, 1, 1, 1, 1, 1 } },
    { CR_BINARY_LOGICAL_OR, CR_DTYPE_BOOL, { 1, 1, 1, 1, 1, 1 } },
    /* g * (1 - a * a), g * (1 - a) * a, torch.where(a <= 0, 0, g) with g = a, b roles:
     * here the "gradient" is a and the saved tensor is b. */
    { CR_BINARY_TANH_BACKWARD, CR_DTYPE_FLOAT32, { -4.5, -1.5, -24.0, -1.5, 3.0, 8.0 } },
    { CR_BINARY_SIGMOID_BACKWARD, CR_DTYPE_FLOAT32, { -3.0, 1.5, -18.0, -1.0, -3.0, 6.0 } },
    { CR_BINARY_RELU_BACKWARD, CR_DTYPE_FLOAT32, { 1.5, 0.0, 3.0, 0.5, 0.0, -1.0 } },
  };
  WITH (a, F32 (2, S (2, 3), { 1.5, -2.0, 3.0, 0.5, 4.0, -1.0 }));
  WITH (b, F32 (1, S (3), { 2.0, -0.5, 3.0 }));

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CrTensor) y = cr_kernel_binary (cases[c].op, a, b, &error);

      g_assert_no_error (error);
      check_full (y, cases[c].dtype, 2, (const gint64[]) { 2, 3 }, cases[c].expected, 4e-7);
    }
  {
    /* The -0.0 of remainder(-2.0, -0.5). */
    WITH (y, cr_kernel_binary (CR_BINARY_REMAINDER, a, b, NULL));
    g_assert_true (signbit (cr_tensor_get_flat (y, 1)));
  }
}

static void
test_binary_strided (void)
{
  /* torch.arange(6.).reshape(3, 2).t() + a */
  WITH (m, F32 (2, S (3, 2), { 0, 1, 2, 3, 4, 5 }));
  WITH (mt, cr_tensor_new_view (m, (const gint64[]) { 2, 3 }, 2, (const gint64[]) { 1, 2 }, 0));
  WITH (a, F32 (2, S (2, 3), { 1.5, -2.0, 3.0, 0.5, 4.0, -1.0 }));
  WITH (col, F32 (2, S (2, 1), { 2, 3 }));
  WITH (y, cr_kernel_binary (CR_BINARY_ADD, mt, a, NULL));
  /* a * torch.tensor([[2.], [3.]]) */
  WITH (z, cr_kernel_binary (CR_BINARY_MUL, a, col, NULL));
  /* torch.tensor([[2.], [3.]]) - torch.tensor([2.0, -0.5, 3.0]): (2, 1) op (3,) -> (2, 3) */
  WITH (b, F32 (1, S (3), { 2.0, -0.5, 3.0 }));
  WITH (w, cr_kernel_binary (CR_BINARY_SUB, col, b, NULL));

  CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (2, 3), { 1.5, 0.0, 7.0, 1.5, 7.0, 4.0 });
  CHECK_EXACT (z, CR_DTYPE_FLOAT32, 2, S (2, 3), { 3.0, -4.0, 6.0, 1.5, 12.0, -3.0 });
  CHECK_EXACT (w, CR_DTYPE_FLOAT32, 2, S (2, 3), { 0.0, 2.5, -1.0, 1.0, 3.5, 0.0 });
}

static void
test_binary_scalars (void)
{
  WITH (x, F32 (1, S (3), { 1.5, -2.0, 3.0 }));
  WITH (two_i, scalar (2, CR_DTYPE_INT64, TRUE));
  WITH (three_i, scalar (3, CR_DTYPE_INT64, TRUE));
  WITH (half, scalar (-0.5, CR_DTYPE_FLOAT64, TRUE));
  WITH (p17, scalar (1.7, CR_DTYPE_FLOAT64, TRUE));
  WITH (pos, F32 (1, S (3), { 1.5, 2.0, 3.0 }));

  {
    /* torch.tensor([1.5, -2.0, 3.0]) ** 2, ** 3 */
    WITH (y, cr_kernel_binary (CR_BINARY_POW, x, two_i, NULL));
    WITH (z, cr_kernel_binary (CR_BINARY_POW, x, three_i, NULL));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 1, S (3), { 2.25, 4.0, 9.0 });
    CHECK_EXACT (z, CR_DTYPE_FLOAT32, 1, S (3), { 3.375, -8.0, 27.0 });
  }
  {
    /* torch.tensor([1.5, 2.0, 3.0]) ** -0.5, ** 1.7 */
    WITH (y, cr_kernel_binary (CR_BINARY_POW, pos, half, NULL));
    WITH (z, cr_kernel_binary (CR_BINARY_POW, pos, p17, NULL));
    CHECK (y, CR_DTYPE_FLOAT32, 1, S (3), { 0.8164965510368347, 0.7071067690849304, 0.5773502588272095 });
    CHECK (z, CR_DTYPE_FLOAT32, 1, S (3), { 1.9923018217086792, 3.249009609222412, 6.473007678985596 });
  }
  {
    /* 0-d op 0-d: torch.tensor(0.8) * torch.tensor(0.5) + wrapped 0.1 */
    WITH (w, scalar (0.8, CR_DTYPE_FLOAT32, FALSE));
    WITH (h, scalar (0.5, CR_DTYPE_FLOAT32, FALSE));
    WITH (b, scalar (0.1, CR_DTYPE_FLOAT64, TRUE));
    WITH (z, cr_kernel_binary (CR_BINARY_MUL, h, w, NULL));
    WITH (s, cr_kernel_binary (CR_BINARY_ADD, z, b, NULL));
    WITH (r, cr_kernel_binary (CR_BINARY_SUB, b, z, NULL));
    /* (torch.tensor(0.5) * torch.tensor(0.8) + 0.1).item() -> 0.5 */
    CHECK_EXACT (s, CR_DTYPE_FLOAT32, 0, S (0), { 0.5 });
    /* 0.1 - torch.tensor(0.4000000059604645) -> -0.30000001192092896 */
    CHECK_EXACT (r, CR_DTYPE_FLOAT32, 0, S (0), { -0.30000001192092896 });
  }
  {
    /* 2 - x (wrapped on the left), x / 2 */
    WITH (r, cr_kernel_binary (CR_BINARY_SUB, two_i, x, NULL));
    WITH (d, cr_kernel_binary (CR_BINARY_DIV, x, two_i, NULL));
    CHECK_EXACT (r, CR_DTYPE_FLOAT32, 1, S (3), { 0.5, 4.0, -1.0 });
    CHECK_EXACT (d, CR_DTYPE_FLOAT32, 1, S (3), { 0.75, -1.0, 1.5 });
  }
}

static void
test_binary_int (void)
{
  g_autoptr(GError) error = NULL;
  WITH (i, I64 (1, S (5), { -7, 7, -7, 7, 0 }));
  WITH (j, I64 (1, S (5), { 2, -2, -2, 2, 3 }));

  {
    /* i // j, i % j, i / j */
    WITH (fd, cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, i, j, NULL));
    WITH (rm, cr_kernel_binary (CR_BINARY_REMAINDER, i, j, NULL));
    WITH (dv, cr_kernel_binary (CR_BINARY_DIV, i, j, NULL));
    CHECK_EXACT (fd, CR_DTYPE_INT64, 1, S (5), { -4, -4, 3, 3, 0 });
    CHECK_EXACT (rm, CR_DTYPE_INT64, 1, S (5), { 1, -1, -1, 1, 0 });
    CHECK_EXACT (dv, CR_DTYPE_FLOAT32, 1, S (5), { -3.5, -3.5, 3.5, 3.5, 0.0 });
  }
  {
    /* torch.tensor([2, 3, -2, 1, -1]) ** torch.tensor([3, 0, 2, -3, -3]) */
    WITH (base, I64 (1, S (5), { 2, 3, -2, 1, -1 }));
    WITH (ex, I64 (1, S (5), { 3, 0, 2, -3, -3 }));
    WITH (p, cr_kernel_binary (CR_BINARY_POW, base, ex, NULL));
    CHECK_EXACT (p, CR_DTYPE_INT64, 1, S (5), { 8, 1, 4, 1, -1 });
  }
  {
    /* torch.tensor([5.5, -5.5, 7., -7.]) // and % torch.tensor([2., 2., -2., -2.]) */
    WITH (a, F32 (1, S (4), { 5.5, -5.5, 7, -7 }));
    WITH (b, F32 (1, S (4), { 2, 2, -2, -2 }));
    WITH (fd, cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, a, b, NULL));
    WITH (rm, cr_kernel_binary (CR_BINARY_REMAINDER, a, b, NULL));
    CHECK_EXACT (fd, CR_DTYPE_FLOAT32, 1, S (4), { 2, -3, -4, 3 });
    CHECK_EXACT (rm, CR_DTYPE_FLOAT32, 1, S (4), { 1.5, 0.5, -1, -1 });
  }
  {
    /* torch.maximum(torch.tensor([1., nan, 3.]), torch.tensor([nan, 2., 1.])) */
    WITH (a, F32 (1, S (3), { 1, NAN, 3 }));
    WITH (b, F32 (1, S (3), { NAN, 2, 1 }));
    WITH (m, cr_kernel_binary (CR_BINARY_MAXIMUM, a, b, NULL));
    WITH (n, cr_kernel_binary (CR_BINARY_MINIMUM, a, b, NULL));
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 1, S (3), { NAN, NAN, 3 });
    CHECK_EXACT (n, CR_DTYPE_FLOAT32, 1, S (3), { NAN, NAN, 1 });
  }

  /* torch.tensor(5) // 0 */
  {
    WITH (five, scalar (5, CR_DTYPE_INT64, FALSE));
    WITH (zero, scalar (0, CR_DTYPE_INT64, TRUE));

    g_assert_null (cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, five, zero, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "ZeroDivisionError");
    g_clear_error (&error);
    g_assert_null (cr_kernel_binary (CR_BINARY_REMAINDER, i, i, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "ZeroDivisionError");
    g_clear_error (&error);
  }
  /* torch.tensor([2]) ** -1 */
  {
    WITH (neg, scalar (-1, CR_DTYPE_INT64, TRUE));
    WITH (negt, scalar (-1, CR_DTYPE_INT64, FALSE));
    WITH (two, I64 (1, S (1), { 2 }));
    WITH (ok, NULL);

    g_assert_null (cr_kernel_binary (CR_BINARY_POW, two, neg, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "Integers to negative integer powers are not allowed.");
    g_clear_error (&error);
    /* torch.tensor([2]) ** torch.tensor(-1) -> tensor([0]) */
    ok = cr_kernel_binary (CR_BINARY_POW, two, negt, &error);
    g_assert_no_error (error);
    CHECK_EXACT (ok, CR_DTYPE_INT64, 1, S (1), { 0 });
  }
}

static void
test_binary_bool (void)
{
  g_autoptr(GError) error = NULL;
  WITH (x, BOOL (1, S (3), { 1, 0, 1 }));
  WITH (y, BOOL (1, S (3), { 1, 1, 0 }));
  WITH (i, I64 (1, S (3), { 1, 2, 3 }));
  WITH (tru, scalar (1, CR_DTYPE_BOOL, TRUE));

  {
    /* torch.add / mul / maximum of bools stay bool; div gives float32 */
    WITH (s, cr_kernel_binary (CR_BINARY_ADD, x, y, NULL));
    WITH (m, cr_kernel_binary (CR_BINARY_MUL, x, y, NULL));
    WITH (d, cr_kernel_binary (CR_BINARY_DIV, x, y, NULL));
    WITH (bi, cr_kernel_binary (CR_BINARY_ADD, x, i, NULL));
    CHECK_EXACT (s, CR_DTYPE_BOOL, 1, S (3), { 1, 1, 1 });
    CHECK_EXACT (m, CR_DTYPE_BOOL, 1, S (3), { 1, 0, 0 });
    CHECK_EXACT (d, CR_DTYPE_FLOAT32, 1, S (3), { 1, 0, INFINITY });
    CHECK_EXACT (bi, CR_DTYPE_INT64, 1, S (3), { 2, 2, 4 });
  }

  g_assert_null (cr_kernel_binary (CR_BINARY_SUB, x, y, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "Subtraction, the `-` operator, with two bool tensors is not supported. "
               "Use the `^` or `logical_xor()` operator instead.");
  g_clear_error (&error);
  /* torch.tensor([True]) - True */
  g_assert_null (cr_kernel_binary (CR_BINARY_SUB, x, tru, &error));
  g_assert_true (g_str_has_prefix (error->message, "Subtraction, the `-` operator, with two bool"));
  g_clear_error (&error);
  /* torch.tensor([True]) - torch.tensor([1]) */
  g_assert_null (cr_kernel_binary (CR_BINARY_SUB, x, i, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
               "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  g_clear_error (&error);
  g_assert_null (cr_kernel_binary (CR_BINARY_POW, x, y, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "\"pow\" not implemented for 'Bool'");
  g_clear_error (&error);
  g_assert_null (cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, x, y, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "\"div_floor_cpu\" not implemented for 'Bool'");
}

static void
test_binary_errors (void)
{
  g_autoptr(GError) error = NULL;
  WITH (a, F32 (2, S (2, 3), { 0, 0, 0, 0, 0, 0 }));
  WITH (b, F32 (2, S (3, 2), { 0, 0, 0, 0, 0, 0 }));

  g_assert_null (cr_kernel_binary (CR_BINARY_ADD, a, b, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
}

/* torch.result_type for each rank (dims, 0-d, wrapped number) and dtype pair,
 * as printed by torch 1.13; '-' marks a wrapped float32, which Python lacks. */
static void
test_promotion_table (void)
{
  static const char *const table[] = {
    /* a: dims */
    "dim dim", "BIFD", "IIFD", "FFFD", "DDDD",
    "dim 0d",  "BIFD", "IIFD", "FFFF", "DDDD",
    "dim wr",  "BI-F", "II-F", "FF-F", "DD-D",
    /* a: 0-d */
    "0d dim",  "BIFD", "IIFD", "FFFD", "DDFD",
    "0d 0d",   "BIFD", "IIFD", "FFFD", "DDDD",
    "0d wr",   "BI-F", "II-F", "FF-F", "DD-D",
  };
  const char letters[] = "BIFD";

  for (guint block = 0; block < G_N_ELEMENTS (table); block += 5)
    {
      const char *kinds = table[block];
      gboolean a_dims = g_str_has_prefix (kinds, "dim");
      const char *kb = strchr (kinds, ' ') + 1;

      for (int da = 0; da < 4; da++)
        for (int db = 0; db < 4; db++)
          {
            char want = table[block + 1 + da][db];
            g_autoptr(CrTensor) a = NULL;
            g_autoptr(CrTensor) b = NULL;
            CrDType got;

            if (want == '-')
              continue;
            a = a_dims ? cr_tensor_new_zeros ((const gint64[]) { 2 }, 1, (CrDType) da, CR_DEVICE_CPU, NULL)
                       : cr_tensor_new_scalar (0, (CrDType) da);
            if (strcmp (kb, "dim") == 0)
              b = cr_tensor_new_zeros ((const gint64[]) { 2 }, 1, (CrDType) db, CR_DEVICE_CPU, NULL);
            else
              {
                b = cr_tensor_new_scalar (0, (CrDType) db);
                b->is_wrapped_number = strcmp (kb, "wr") == 0;
              }
            got = cr_dtype_result_type (a, b);
            if (letters[got] != want)
              g_error ("%s: %s op %s gave %s, torch gives %c", kinds, cr_dtype_name ((CrDType) da),
                       cr_dtype_name ((CrDType) db), cr_dtype_name (got), want);
            /* Symmetric. */
            g_assert_cmpint (cr_dtype_result_type (b, a), ==, got);
          }
    }
}

/* The same with int32 and uint8, by CrDType value (B L F D I U), as
 * torch.result_type gives in 1.13; then a Python bool, int, float with a
 * tensor with dims and a 0-d one. */
static void
test_promotion_narrow (void)
{
  static const char *const table[] = {
    "dim dim", "BLFDIU", "LLFDLL", "FFFDFF", "DDDDDD", "ILFDII", "ULFDIU",
    "dim 0d",  "BLFDIU", "LLFDLL", "FFFFFF", "DDDDDD", "IIFDII", "UUFDUU",
    "0d dim",  "BLFDIU", "LLFDIU", "FFFDFF", "DDFDDD", "ILFDIU", "ULFDIU",
    "0d 0d",   "BLFDIU", "LLFDLL", "FFFDFF", "DDDDDD", "ILFDII", "ULFDIU",
  };
  static const char *const wrapped[] = { "BBLLFF", "LLLLFF", "FFFFFF", "DDDDDD", "IIIIFF", "UUUUFF" };
  static const CrDType python[] = { CR_DTYPE_BOOL, CR_DTYPE_INT64, CR_DTYPE_FLOAT64 };
  const char letters[] = "BLFDIU";

  G_STATIC_ASSERT (CR_DTYPE_COUNT == 6);
  for (guint block = 0; block < G_N_ELEMENTS (table); block += 7)
    for (int da = 0; da < CR_DTYPE_COUNT; da++)
      for (int db = 0; db < CR_DTYPE_COUNT; db++)
        {
          gboolean a_dims = g_str_has_prefix (table[block], "dim");
          gboolean b_dims = g_str_has_suffix (table[block], "dim");
          g_autoptr(CrTensor) a = cr_tensor_new_zeros ((const gint64[]) { 2 }, a_dims ? 1 : 0,
                                                       (CrDType) da, CR_DEVICE_CPU, NULL);
          g_autoptr(CrTensor) b = cr_tensor_new_zeros ((const gint64[]) { 2 }, b_dims ? 1 : 0,
                                                       (CrDType) db, CR_DEVICE_CPU, NULL);

          g_assert_cmpint (letters[cr_dtype_result_type (a, b)], ==, table[block + 1 + da][db]);
        }
  for (int da = 0; da < CR_DTYPE_COUNT; da++)
    for (int k = 0; k < 6; k++)
      {
        g_autoptr(CrTensor) a = cr_tensor_new_zeros ((const gint64[]) { 2 }, k % 2 == 0 ? 1 : 0,
                                                     (CrDType) da, CR_DEVICE_CPU, NULL);
        g_autoptr(CrTensor) b = cr_tensor_new_scalar (1, python[k / 2]);

        b->is_wrapped_number = TRUE;
        g_assert_cmpint (letters[cr_dtype_result_type (a, b)], ==, wrapped[da][k]);
      }
}

/* int32 and uint8 compute in int64 and wrap as PyTorch's (cr-cpu-narrow.c). */
static void
test_narrow_integers (void)
{
  const guint8 u_data[] = { 250, 3, 7 };
  const gint32 i_data[] = { G_MAXINT32, -7, 7 };
  g_autoptr(CrTensor) u = cr_tensor_new_from_data (u_data, (const gint64[]) { 3 }, 1, CR_DTYPE_UINT8, NULL);
  g_autoptr(CrTensor) i = cr_tensor_new_from_data (i_data, (const gint64[]) { 3 }, 1, CR_DTYPE_INT32, NULL);
  g_autoptr(CrTensor) ten = cr_tensor_new_scalar (10, CR_DTYPE_INT64);
  g_autoptr(CrTensor) minus_one = cr_tensor_new_scalar (-1, CR_DTYPE_INT64);
  g_autoptr(CrTensor) three = cr_tensor_new_scalar (3, CR_DTYPE_INT64);
  g_autoptr(CrTensor) u_sum = NULL, i_sum = NULL, u_gt = NULL, i_div = NULL, i_fdiv = NULL;
  g_autoptr(CrTensor) u_cast = NULL, floats = NULL;
  const float f_data[] = { 300.0f, -1.0f, 1e10f, -2.7f };
  GError *error = NULL;

  ten->is_wrapped_number = minus_one->is_wrapped_number = three->is_wrapped_number = TRUE;

  u_sum = cr_kernel_binary (CR_BINARY_ADD, u, ten, &error);
  g_assert_no_error (error);
  g_assert_cmpint (u_sum->dtype, ==, CR_DTYPE_UINT8);
  g_assert_cmpint (cr_tensor_get_flat_int (u_sum, 0), ==, 4);    /* 260 wraps */

  i_sum = cr_kernel_binary (CR_BINARY_ADD, i, ten, &error);
  g_assert_no_error (error);
  g_assert_cmpint (i_sum->dtype, ==, CR_DTYPE_INT32);
  g_assert_cmpint (cr_tensor_get_flat_int (i_sum, 0), ==, (gint64) G_MININT32 + 9);

  /* -1 meets uint8 as 255. */
  u_gt = cr_kernel_binary (CR_BINARY_GT, u, minus_one, &error);
  g_assert_no_error (error);
  g_assert_cmpint (u_gt->dtype, ==, CR_DTYPE_BOOL);
  g_assert_cmpfloat (cr_tensor_get_flat (u_gt, 0), ==, 0.0);

  i_div = cr_kernel_binary (CR_BINARY_DIV, i, three, &error);
  g_assert_no_error (error);
  g_assert_cmpint (i_div->dtype, ==, CR_DTYPE_FLOAT32);
  i_fdiv = cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, i, three, &error);
  g_assert_no_error (error);
  g_assert_cmpint (i_fdiv->dtype, ==, CR_DTYPE_INT32);
  g_assert_cmpint (cr_tensor_get_flat_int (i_fdiv, 1), ==, -3);

  g_clear_pointer (&u_sum, cr_tensor_unref);
  u_sum = cr_kernel_sum (u, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (u_sum->dtype, ==, CR_DTYPE_INT64);
  g_assert_cmpint (cr_tensor_get_flat_int (u_sum, 0), ==, 260);

  floats = cr_tensor_new_from_data (f_data, (const gint64[]) { 4 }, 1, CR_DTYPE_FLOAT32, NULL);
  u_cast = cr_kernel_cast (floats, CR_DTYPE_UINT8, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cr_tensor_get_flat_int (u_cast, 0), ==, 44);
  g_assert_cmpint (cr_tensor_get_flat_int (u_cast, 1), ==, 255);
  g_assert_cmpint (cr_tensor_get_flat_int (u_cast, 2), ==, 0);
  g_assert_cmpint (cr_tensor_get_flat_int (u_cast, 3), ==, 254);
}

static void
test_binary_into (void)
{
  g_autoptr(GError) error = NULL;
  WITH (x, I64 (1, S (2), { 1, 2 }));
  WITH (f, F32 (1, S (2), { 1.5, 2.5 }));
  WITH (bools, BOOL (1, S (2), { 1, 0 }));
  WITH (big, F32 (2, S (3, 2), { 0, 0, 0, 0, 0, 0 }));

  /* x = torch.tensor([1, 2]); x += 1.5 */
  g_assert_false (cr_kernel_binary_into (CR_BINARY_ADD, x, x, f, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "result type Float can't be cast to the desired output type Long");
  g_clear_error (&error);
  /* torch.tensor([True, False]) *= torch.tensor([2, 2]) */
  g_assert_false (cr_kernel_binary_into (CR_BINARY_MUL, bools, bools, x, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "result type Long can't be cast to the desired output type Bool");
  g_clear_error (&error);
  /* torch.ones(2).add_(torch.ones(3, 2)) */
  g_assert_false (cr_kernel_binary_into (CR_BINARY_ADD, f, f, big, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "output with shape [2] doesn't match the broadcast shape [3, 2]");
  g_clear_error (&error);

  /* x += torch.tensor([True, False]) -> [2, 2] */
  g_assert_true (cr_kernel_binary_into (CR_BINARY_ADD, x, x, bools, &error));
  CHECK_EXACT (x, CR_DTYPE_INT64, 1, S (2), { 2, 2 });
  /* f /= torch.tensor([2., 2.], dtype=torch.float64) stays float32 */
  {
    WITH (d, F64 (1, S (2), { 2, 2 }));
    g_assert_true (cr_kernel_binary_into (CR_BINARY_DIV, f, f, d, &error));
    CHECK_EXACT (f, CR_DTYPE_FLOAT32, 1, S (2), { 0.75, 1.25 });
  }
  /* Into a strided view: big[:, 1] = f * 2 */
  {
    WITH (col, cr_tensor_new_view (big, (const gint64[]) { 3 }, 1, (const gint64[]) { 2 }, 1));
    WITH (v, F32 (1, S (3), { 1, 2, 3 }));
    WITH (two, scalar (2, CR_DTYPE_INT64, TRUE));
    g_assert_true (cr_kernel_binary_into (CR_BINARY_MUL, col, v, two, &error));
    CHECK_EXACT (big, CR_DTYPE_FLOAT32, 2, S (3, 2), { 0, 2, 0, 4, 0, 6 });
  }
  /* x += x.t() reads the transpose before writing: torch gives [[0, 3], [3, 6]] from [[0, 1], [2, 3]] */
  {
    WITH (m, F32 (2, S (2, 2), { 0, 1, 2, 3 }));
    WITH (mt, cr_tensor_new_view (m, (const gint64[]) { 2, 2 }, 2, (const gint64[]) { 1, 2 }, 0));
    g_assert_true (cr_kernel_binary_into (CR_BINARY_ADD, m, m, mt, &error));
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 2, S (2, 2), { 0, 3, 3, 6 });
  }
  /* Comparison into a float tensor: torch.eq(a, b, out=float) */
  {
    WITH (out, F32 (1, S (2), { 9, 9 }));
    WITH (a, F32 (1, S (2), { 1, 2 }));
    WITH (b, F32 (1, S (2), { 1, 3 }));
    g_assert_true (cr_kernel_binary_into (CR_BINARY_EQ, out, a, b, &error));
    CHECK_EXACT (out, CR_DTYPE_FLOAT32, 1, S (2), { 1, 0 });
  }
}

static void
test_add_scaled (void)
{
  g_autoptr(GError) error = NULL;
  WITH (a, F32 (2, S (2, 3), { 1.5, -2.0, 3.0, 0.5, 4.0, -1.0 }));
  WITH (b, F32 (1, S (3), { 2.0, -0.5, 3.0 }));
  WITH (ia, I64 (1, S (2), { 1, 2 }));

  {
    /* torch.add(a, b, alpha=-2.5) */
    WITH (y, cr_kernel_add_scaled (a, b, -2.5, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (2, 3), { -3.5, -0.75, -4.5, -4.5, 5.25, -8.5 });
  }
  /* a.add_(b, alpha=0.5) in place (SGD step) */
  g_assert_true (cr_kernel_add_scaled_into (a, b, 0.5, &error));
  CHECK_EXACT (a, CR_DTYPE_FLOAT32, 2, S (2, 3), { 2.5, -2.25, 4.5, 1.5, 3.75, 0.5 });

  g_assert_null (cr_kernel_add_scaled (ia, ia, 2.5, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "For integral input tensors, argument alpha must not be a floating point number.");
  g_clear_error (&error);
  {
    /* torch.add(torch.tensor([1, 2]), torch.tensor([1, 2]), alpha=3) */
    WITH (y, cr_kernel_add_scaled (ia, ia, 3, &error));
    CHECK_EXACT (y, CR_DTYPE_INT64, 1, S (2), { 4, 8 });
  }
}

static void
test_clamp_where (void)
{
  g_autoptr(GError) error = NULL;

  {
    /* torch.clamp(torch.tensor([-2., 0.5, 3., nan]), min=-1, max=2) */
    WITH (x, F32 (1, S (4), { -2, 0.5, 3, NAN }));
    WITH (y, cr_kernel_clamp (x, TRUE, -1, TRUE, 2, &error));
    WITH (lo, cr_kernel_clamp (x, TRUE, 0, FALSE, 0, &error));
    /* min > max gives max: torch.clamp(x, min=2, max=1) */
    WITH (inv, cr_kernel_clamp (x, TRUE, 2, TRUE, 1, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 1, S (4), { -1, 0.5, 2, NAN });
    CHECK_EXACT (lo, CR_DTYPE_FLOAT32, 1, S (4), { 0, 0.5, 3, NAN });
    CHECK_EXACT (inv, CR_DTYPE_FLOAT32, 1, S (4), { 1, 1, 1, NAN });
  }
  {
    /* torch.clamp(torch.tensor([1, 2, 3]), min=1.5) -> float32; min=2 -> int64 */
    WITH (x, I64 (1, S (3), { 1, 2, 3 }));
    WITH (y, cr_kernel_clamp (x, TRUE, 1.5, FALSE, 0, &error));
    WITH (z, cr_kernel_clamp (x, TRUE, 2, FALSE, 0, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 1, S (3), { 1.5, 2, 3 });
    CHECK_EXACT (z, CR_DTYPE_INT64, 1, S (3), { 2, 2, 3 });
  }
  {
    /* torch.where(cond, a, torch.tensor(0.5, dtype=torch.float64)) -> float32 */
    WITH (c, BOOL (2, S (2, 3), { 1, 0, 1, 0, 1, 0 }));
    WITH (a, F32 (2, S (2, 3), { 1.5, -2.0, 3.0, 0.5, 4.0, -1.0 }));
    WITH (h, scalar (0.5, CR_DTYPE_FLOAT64, FALSE));
    WITH (y, cr_kernel_where (c, a, h, &error));
    /* torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), torch.tensor([1.5, 2.5])) */
    WITH (c2, BOOL (1, S (2), { 1, 0 }));
    WITH (i2, I64 (1, S (2), { 1, 2 }));
    WITH (f2, F32 (1, S (2), { 1.5, 2.5 }));
    WITH (z, cr_kernel_where (c2, i2, f2, &error));

    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (2, 3), { 1.5, 0.5, 3.0, 0.5, 4.0, 0.5 });
    CHECK_EXACT (z, CR_DTYPE_FLOAT32, 1, S (2), { 1, 2.5 });
    g_assert_null (cr_kernel_where (f2, i2, f2, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR,
                 "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
  }
}

static void
test_copy_fill_cast (void)
{
  g_autoptr(GError) error = NULL;
  WITH (dst, F32 (2, S (2, 3), { 0, 0, 0, 0, 0, 0 }));
  WITH (row, I64 (1, S (3), { 1, -2, 3 }));
  WITH (bad, F32 (1, S (2), { 1, 2 }));

  /* dst.copy_(torch.tensor([1, -2, 3])): broadcast and cast */
  g_assert_true (cr_kernel_copy_into (dst, row, &error));
  CHECK_EXACT (dst, CR_DTYPE_FLOAT32, 2, S (2, 3), { 1, -2, 3, 1, -2, 3 });
  /* torch.ones(2, 3).copy_(torch.ones(2)) */
  g_assert_false (cr_kernel_copy_into (dst, bad, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  g_clear_error (&error);

  g_assert_true (cr_kernel_fill (dst, 2.5, &error));
  CHECK_EXACT (dst, CR_DTYPE_FLOAT32, 2, S (2, 3), { 2.5, 2.5, 2.5, 2.5, 2.5, 2.5 });

  {
    /* torch.tensor([1.5, -2.7, 0., nan]).long() / .bool() */
    WITH (x, F32 (1, S (4), { 1.5, -2.7, 0, NAN }));
    WITH (l, cr_kernel_cast (x, CR_DTYPE_INT64, &error));
    WITH (b, cr_kernel_cast (x, CR_DTYPE_BOOL, &error));
    WITH (d, cr_kernel_cast (b, CR_DTYPE_FLOAT64, &error));
    g_assert_cmpint (cr_tensor_get_flat_int (l, 0), ==, 1);
    g_assert_cmpint (cr_tensor_get_flat_int (l, 1), ==, -2);
    g_assert_cmpint (cr_tensor_get_flat_int (l, 2), ==, 0);
    CHECK_EXACT (b, CR_DTYPE_BOOL, 1, S (4), { 1, 1, 0, 1 });
    CHECK_EXACT (d, CR_DTYPE_FLOAT64, 1, S (4), { 1, 1, 0, 1 });
  }
  {
    /* Strided source into a strided destination: dst.t() gets a transposed copy. */
    WITH (m, F32 (2, S (2, 2), { 1, 2, 3, 4 }));
    WITH (o, F32 (2, S (2, 2), { 0, 0, 0, 0 }));
    WITH (ot, cr_tensor_new_view (o, (const gint64[]) { 2, 2 }, 2, (const gint64[]) { 1, 2 }, 0));
    g_assert_true (cr_kernel_copy_into (ot, m, &error));
    CHECK_EXACT (o, CR_DTYPE_FLOAT32, 2, S (2, 2), { 1, 3, 2, 4 });
  }
}

/* ---- reductions ------------------------------------------------------------- */

static CrTensor *
arange_f32 (gint64 n)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t = cr_tensor_new_arange (0, (double) n, 1, CR_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  return t;
}

static CrTensor *
reshape (CrTensor     *t,
         int           ndim,
         const gint64 *shape)
{
  gint64 strides[CR_MAX_DIMS];

  cr_shape_contiguous_strides (shape, ndim, strides);
  return cr_tensor_new_view (t, shape, ndim, strides, t->offset);
}

static void
test_sum (void)
{
  g_autoptr(GError) error = NULL;
  WITH (flat, arange_f32 (24));
  /* r = torch.arange(24.).reshape(2, 3, 4) */
  WITH (r, reshape (flat, 3, (const gint64[]) { 2, 3, 4 }));

  {
    WITH (all, cr_kernel_sum (r, NULL, 0, FALSE, &error));
    WITH (s1, cr_kernel_sum (r, (const int[]) { 1 }, 1, FALSE, &error));
    WITH (s02, cr_kernel_sum (r, (const int[]) { 0, 2 }, 2, FALSE, &error));
    WITH (sk, cr_kernel_sum (r, (const int[]) { -1 }, 1, TRUE, &error));
    g_assert_no_error (error);
    CHECK_EXACT (all, CR_DTYPE_FLOAT32, 0, S (0), { 276 });
    CHECK_EXACT (s1, CR_DTYPE_FLOAT32, 2, S (2, 4), { 12, 15, 18, 21, 48, 51, 54, 57 });
    CHECK_EXACT (s02, CR_DTYPE_FLOAT32, 1, S (3), { 60, 92, 124 });
    CHECK_EXACT (sk, CR_DTYPE_FLOAT32, 3, S (2, 3, 1), { 6, 22, 38, 54, 70, 86 });
  }
  {
    /* r.transpose(0, 2).sum(0) */
    WITH (t, cr_tensor_new_view (r, (const gint64[]) { 4, 3, 2 }, 3, (const gint64[]) { 1, 4, 12 }, 0));
    WITH (s, cr_kernel_sum (t, (const int[]) { 0 }, 1, FALSE, &error));
    CHECK_EXACT (s, CR_DTYPE_FLOAT32, 2, S (3, 2), { 6, 54, 22, 70, 38, 86 });
  }
  {
    /* r.mean(1); (r[:, :, :3] + 1).prod(2) */
    WITH (m, cr_kernel_mean (r, (const int[]) { 1 }, 1, FALSE, &error));
    WITH (one, scalar (1, CR_DTYPE_INT64, TRUE));
    WITH (sl, cr_tensor_new_view (r, (const gint64[]) { 2, 3, 3 }, 3, (const gint64[]) { 12, 4, 1 }, 0));
    WITH (p1, cr_kernel_binary (CR_BINARY_ADD, sl, one, &error));
    WITH (p, cr_kernel_prod (p1, (const int[]) { 2 }, 1, FALSE, &error));
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 2, S (2, 4), { 4, 5, 6, 7, 16, 17, 18, 19 });
    CHECK_EXACT (p, CR_DTYPE_FLOAT32, 2, S (2, 3), { 6, 210, 990, 2730, 5814, 10626 });
  }
  {
    /* torch.tensor([[1, 2], [3, 4]]).sum(0); torch.tensor([True, False, True]).sum(); .prod() */
    WITH (i, I64 (2, S (2, 2), { 1, 2, 3, 4 }));
    WITH (b, BOOL (1, S (3), { 1, 0, 1 }));
    WITH (si, cr_kernel_sum (i, (const int[]) { 0 }, 1, FALSE, &error));
    WITH (sb, cr_kernel_sum (b, NULL, 0, FALSE, &error));
    WITH (pb, cr_kernel_prod (b, NULL, 0, FALSE, &error));
    CHECK_EXACT (si, CR_DTYPE_INT64, 1, S (2), { 4, 6 });
    CHECK_EXACT (sb, CR_DTYPE_INT64, 0, S (0), { 2 });
    CHECK_EXACT (pb, CR_DTYPE_INT64, 0, S (0), { 0 });
  }
  {
    /* torch.ones(2, 0).sum(1) -> [0, 0]; .prod(1) -> [1, 1]; .mean(1) -> [nan, nan];
     * torch.tensor([]).sum() -> 0. */
    WITH (e, cr_tensor_new_zeros ((const gint64[]) { 2, 0 }, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL));
    WITH (s, cr_kernel_sum (e, (const int[]) { 1 }, 1, FALSE, &error));
    WITH (p, cr_kernel_prod (e, (const int[]) { 1 }, 1, FALSE, &error));
    WITH (m, cr_kernel_mean (e, (const int[]) { 1 }, 1, FALSE, &error));
    WITH (a, cr_kernel_sum (e, NULL, 0, FALSE, &error));
    CHECK_EXACT (s, CR_DTYPE_FLOAT32, 1, S (2), { 0, 0 });
    CHECK_EXACT (p, CR_DTYPE_FLOAT32, 1, S (2), { 1, 1 });
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 1, S (2), { NAN, NAN });
    CHECK_EXACT (a, CR_DTYPE_FLOAT32, 0, S (0), { 0 });
  }
  {
    /* torch.tensor(5.).sum(0) and .sum(-1) */
    WITH (s, scalar (5, CR_DTYPE_FLOAT32, FALSE));
    WITH (y, cr_kernel_sum (s, (const int[]) { -1 }, 1, FALSE, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 0, S (0), { 5 });
    g_assert_null (cr_kernel_sum (s, (const int[]) { 1 }, 1, FALSE, &error));
    check_error (error, CR_EXC_INDEX_ERROR,
                 "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    g_clear_error (&error);
  }

  /* x.sum(2) for 2-d x; x.sum((0, -2)) */
  {
    WITH (x, I64 (2, S (2, 3), { 1, 2, 3, 4, 5, 6 }));
    g_assert_null (cr_kernel_sum (x, (const int[]) { 2 }, 1, FALSE, &error));
    check_error (error, CR_EXC_INDEX_ERROR,
                 "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    g_clear_error (&error);
    g_assert_null (cr_kernel_sum (x, (const int[]) { -3 }, 1, FALSE, &error));
    check_error (error, CR_EXC_INDEX_ERROR,
                 "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    g_clear_error (&error);
    g_assert_null (cr_kernel_sum (x, (const int[]) { 0, -2 }, 2, FALSE, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "dim 0 appears multiple times in the list of dims");
    g_clear_error (&error);
    g_assert_null (cr_kernel_mean (x, NULL, 0, FALSE, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR,
                 "mean(): could not infer output dtype. Input dtype must be either a floating point "
                 "or complex dtype. Got: Long");
  }
}

static void
test_sum_accuracy (void)
{
  g_autoptr(GError) error = NULL;
  /* big = torch.arange(4194304, dtype=torch.float32) * 0.001; big.mean(), big.sum() */
  WITH (a, arange_f32 (4194304));
  WITH (k, scalar (0.001, CR_DTYPE_FLOAT64, TRUE));
  WITH (big, cr_kernel_binary (CR_BINARY_MUL, a, k, &error));
  WITH (m, cr_kernel_mean (big, NULL, 0, FALSE, &error));
  WITH (s, cr_kernel_sum (big, NULL, 0, FALSE, &error));

  g_assert_no_error (error);
  CHECK_EXACT (m, CR_DTYPE_FLOAT32, 0, S (0), { 2097.151611328125 });
  CHECK_EXACT (s, CR_DTYPE_FLOAT32, 0, S (0), { 8796091392.0 });
}

static void
test_sum_to_shape (void)
{
  g_autoptr(GError) error = NULL;
  WITH (ones, cr_tensor_new_full ((const gint64[]) { 2, 3, 4 }, 3, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL));
  WITH (g, F32 (2, S (2, 3), { 1, 2, 3, 4, 5, 6 }));

  {
    /* torch.ones(2, 3, 4).sum_to_size(3, 1) */
    WITH (y, cr_kernel_sum_to_shape (ones, (const gint64[]) { 3, 1 }, 2, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (3, 1), { 8, 8, 8 });
  }
  {
    /* bias gradient: g.sum_to_size(3) -> [5, 7, 9]; g.sum_to_size(2, 1) -> [6, 15]; () -> 21 */
    WITH (b, cr_kernel_sum_to_shape (g, (const gint64[]) { 3 }, 1, &error));
    WITH (c, cr_kernel_sum_to_shape (g, (const gint64[]) { 2, 1 }, 2, &error));
    WITH (s, cr_kernel_sum_to_shape (g, NULL, 0, &error));
    WITH (same, cr_kernel_sum_to_shape (g, (const gint64[]) { 2, 3 }, 2, &error));
    CHECK_EXACT (b, CR_DTYPE_FLOAT32, 1, S (3), { 5, 7, 9 });
    CHECK_EXACT (c, CR_DTYPE_FLOAT32, 2, S (2, 1), { 6, 15 });
    CHECK_EXACT (s, CR_DTYPE_FLOAT32, 0, S (0), { 21 });
    CHECK_EXACT (same, CR_DTYPE_FLOAT32, 2, S (2, 3), { 1, 2, 3, 4, 5, 6 });
    g_assert_true (same != g);
  }
  g_assert_null (cr_kernel_sum_to_shape (g, (const gint64[]) { 4 }, 1, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
}

static void
test_max (void)
{
  g_autoptr(GError) error = NULL;
  WITH (x, F32 (2, S (2, 3), { 1, 5, 5, 7, 2, 7 }));

  {
    WITH (m, cr_kernel_max_all (x, FALSE, &error));
    WITH (n, cr_kernel_max_all (x, TRUE, &error));
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 0, S (0), { 7 });
    CHECK_EXACT (n, CR_DTYPE_FLOAT32, 0, S (0), { 1 });
  }
  {
    /* x.max(1): values [5, 7], indices [1, 0] (first of ties) */
    CrTensor *v = NULL, *i = NULL;

    g_assert_true (cr_kernel_max_dim (x, 1, FALSE, FALSE, &v, &i, &error));
    CHECK_EXACT (v, CR_DTYPE_FLOAT32, 1, S (2), { 5, 7 });
    CHECK_EXACT (i, CR_DTYPE_INT64, 1, S (2), { 1, 0 });
    cr_tensor_unref (v);
    cr_tensor_unref (i);
    /* torch.tensor([[1., 5., 5.], [7., 2., 0.]]).min(0, keepdim=True) */
    {
      WITH (y, F32 (2, S (2, 3), { 1, 5, 5, 7, 2, 0 }));
      g_assert_true (cr_kernel_max_dim (y, 0, TRUE, TRUE, &v, &i, &error));
      CHECK_EXACT (v, CR_DTYPE_FLOAT32, 2, S (1, 3), { 1, 2, 0 });
      CHECK_EXACT (i, CR_DTYPE_INT64, 2, S (1, 3), { 0, 1, 1 });
      cr_tensor_unref (v);
      cr_tensor_unref (i);
    }
  }
  {
    /* x.argmax() -> 3; x.argmin(1) -> [0, 1]; x.argmax(keepdim=True) -> [[3]] */
    WITH (a, cr_kernel_argmax (x, FALSE, 0, FALSE, FALSE, &error));
    WITH (b, cr_kernel_argmax (x, TRUE, 1, FALSE, TRUE, &error));
    WITH (c, cr_kernel_argmax (x, FALSE, 0, TRUE, FALSE, &error));
    CHECK_EXACT (a, CR_DTYPE_INT64, 0, S (0), { 3 });
    CHECK_EXACT (b, CR_DTYPE_INT64, 1, S (2), { 0, 1 });
    CHECK_EXACT (c, CR_DTYPE_INT64, 2, S (1, 1), { 3 });
  }
  {
    /* NaN wins: torch.tensor([1., nan, 3.]).max() -> nan; .max(0) -> (nan, 1);
     * torch.tensor([1., nan, nan]).argmax() -> 1 */
    WITH (y, F32 (1, S (3), { 1, NAN, 3 }));
    WITH (z, F32 (1, S (3), { 1, NAN, NAN }));
    WITH (m, cr_kernel_max_all (y, FALSE, &error));
    WITH (a, cr_kernel_argmax (z, FALSE, 0, FALSE, FALSE, &error));
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 0, S (0), { NAN });
    CHECK_EXACT (a, CR_DTYPE_INT64, 0, S (0), { 1 });
  }
  {
    /* Empty inputs. */
    WITH (e, cr_tensor_new_zeros ((const gint64[]) { 0, 3 }, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL));
    CrTensor *v = NULL, *i = NULL;

    g_assert_null (cr_kernel_max_all (e, FALSE, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR,
                 "max(): Expected reduction dim to be specified for input.numel() == 0. "
                 "Specify the reduction dim with the 'dim' argument.");
    g_clear_error (&error);
    g_assert_false (cr_kernel_max_dim (e, 0, FALSE, FALSE, &v, &i, &error));
    check_error (error, CR_EXC_INDEX_ERROR, "max(): Expected reduction dim 0 to have non-zero size.");
    g_clear_error (&error);
    g_assert_null (cr_kernel_argmax (e, FALSE, 0, FALSE, TRUE, &error));
    check_error (error, CR_EXC_INDEX_ERROR,
                 "argmin(): Expected reduction dim to be specified for input.numel() == 0.");
    g_clear_error (&error);
    /* torch.zeros(0, 3).max(1) works: empty values */
    g_assert_true (cr_kernel_max_dim (e, 1, FALSE, FALSE, &v, &i, &error));
    g_assert_cmpint (v->numel, ==, 0);
    cr_tensor_unref (v);
    cr_tensor_unref (i);
  }
}

static void
test_softmax (void)
{
  g_autoptr(GError) error = NULL;
  WITH (s, F32 (2, S (2, 3), { 1, 2, 3, 1, -1, 0.5 }));
  WITH (g, F32 (2, S (2, 3), { 0.3, -0.2, 1.0, 0.5, 0.5, -1.0 }));
  WITH (y1, cr_kernel_softmax (s, 1, FALSE, &error));
  WITH (l1, cr_kernel_softmax (s, 1, TRUE, &error));
  WITH (y0, cr_kernel_softmax (s, 0, FALSE, &error));
  WITH (b1, cr_kernel_softmax_backward (g, y1, 1, FALSE, &error));
  WITH (bl, cr_kernel_softmax_backward (g, l1, -1, TRUE, &error));
  WITH (b0, cr_kernel_softmax_backward (g, y0, 0, FALSE, &error));

  g_assert_no_error (error);
  /* s.softmax(1), s.log_softmax(1), s.softmax(0) */
  CHECK (y1, CR_DTYPE_FLOAT32, 2, S (2, 3), { 0.09003057330846786, 0.2447284758090973, 0.6652409434318542,
                                              0.5740969777107239, 0.0776955783367157, 0.34820741415023804 });
  CHECK (l1, CR_DTYPE_FLOAT32, 2, S (2, 3), { -2.4076058864593506, -1.4076058864593506, -0.40760594606399536,
                                              -0.5549569725990295, -2.5549569129943848, -1.0549569129943848 });
  CHECK (y0, CR_DTYPE_FLOAT32, 2, S (2, 3), { 0.5, 0.9525741338729858, 0.9241418242454529,
                                              0.5, 0.04742587357759476, 0.07585817575454712 });
  /* s.requires_grad_(); y = s.softmax(1); y.backward(g); s.grad (and log_softmax, softmax(0)) */
  check_full (b1, CR_DTYPE_FLOAT32, 2, (const gint64[]) { 2, 3 },
              (const double[]) { -0.03090789169073105, -0.20638060569763184, 0.23728851974010468,
                                 0.2998572587966919, 0.040581267327070236, -0.34043851494789124 }, 2e-6);
  check_full (bl, CR_DTYPE_FLOAT32, 2, (const gint64[]) { 2, 3 },
              (const double[]) { 0.20096637308597565, -0.46920135617256165, 0.26823487877845764,
                                 0.5, 0.5, -1.0 }, 2e-6);
  check_full (b0, CR_DTYPE_FLOAT32, 2, (const gint64[]) { 2, 3 },
              (const double[]) { -0.04999999701976776, -0.03162365406751633, 0.1402074247598648,
                                 0.04999999701976776, 0.03162366524338722, -0.1402074247598648 }, 2e-6);

  {
    WITH (i, I64 (1, S (2), { 1, 2 }));
    WITH (i2, I64 (2, S (1, 2), { 1, 2 }));
    WITH (z, scalar (2, CR_DTYPE_FLOAT32, FALSE));
    WITH (zz, cr_kernel_softmax (z, 0, FALSE, &error));

    /* torch.tensor(2.).softmax(0) -> 1. */
    CHECK_EXACT (zz, CR_DTYPE_FLOAT32, 0, S (0), { 1 });
    g_assert_null (cr_kernel_softmax (i, 0, TRUE, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
    g_clear_error (&error);
    g_assert_null (cr_kernel_softmax (i2, 0, FALSE, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "\"softmax_kernel_impl\" not implemented for 'Long'");
    g_clear_error (&error);
    g_assert_null (cr_kernel_softmax (s, 2, FALSE, &error));
    check_error (error, CR_EXC_INDEX_ERROR,
                 "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  }
}

/* ---- matmul ------------------------------------------------------------------ */

static void
test_mm (void)
{
  g_autoptr(GError) error = NULL;
  WITH (a, F32 (2, S (2, 3), { 1, 2, 3, 4, 5, 6 }));
  WITH (b, F32 (2, S (3, 2), { 1, 0.5, -1, 2, 0, 3 }));
  /* Transposed views of contiguous matrices: go to BLAS with a flag. */
  WITH (bt, cr_tensor_new_view (b, (const gint64[]) { 2, 3 }, 2, (const gint64[]) { 1, 2 }, 0));
  WITH (at, cr_tensor_new_view (a, (const gint64[]) { 3, 2 }, 2, (const gint64[]) { 1, 3 }, 0));

  {
    /* A @ B; B.t() @ A.t() */
    WITH (c, cr_kernel_mm (a, b, &error));
    WITH (d, cr_kernel_mm (bt, at, &error));
    CHECK_EXACT (c, CR_DTYPE_FLOAT32, 2, S (2, 2), { -1, 13.5, -1, 30 });
    CHECK_EXACT (d, CR_DTYPE_FLOAT32, 2, S (2, 2), { -1, -1, 13.5, 30 });
  }
  {
    /* A column slice (stride 3, not BLAS-readable as is): a[:, 1:2] @ b[0:1, :] */
    WITH (col, cr_tensor_new_view (a, (const gint64[]) { 2, 1 }, 2, (const gint64[]) { 3, 1 }, 1));
    WITH (row, cr_tensor_new_view (b, (const gint64[]) { 1, 2 }, 2, (const gint64[]) { 2, 1 }, 0));
    WITH (c, cr_kernel_mm (col, row, &error));
    /* torch: [[2.], [5.]] @ [[1., 0.5]] = [[2, 1], [5, 2.5]] */
    CHECK_EXACT (c, CR_DTYPE_FLOAT32, 2, S (2, 2), { 2, 1, 5, 2.5 });
  }
  {
    /* Doubles and int64 */
    WITH (ad, cr_kernel_cast (a, CR_DTYPE_FLOAT64, NULL));
    WITH (bd, cr_kernel_cast (b, CR_DTYPE_FLOAT64, NULL));
    WITH (cd, cr_kernel_mm (ad, bd, &error));
    WITH (ai, I64 (2, S (2, 3), { 1, 2, 3, 4, 5, 6 }));
    WITH (bi, I64 (2, S (3, 2), { 1, 0, -1, 2, 0, 3 }));
    WITH (ci, cr_kernel_mm (ai, bi, &error));
    CHECK_EXACT (cd, CR_DTYPE_FLOAT64, 2, S (2, 2), { -1, 13.5, -1, 30 });
    /* torch.tensor([[1,2,3],[4,5,6]]) @ torch.tensor([[1,0],[-1,2],[0,3]]) */
    CHECK_EXACT (ci, CR_DTYPE_INT64, 2, S (2, 2), { -1, 13, -1, 28 });
  }
  {
    /* torch.mm(torch.ones(2, 0), torch.ones(0, 2)) -> zeros */
    WITH (e1, cr_tensor_new_full ((const gint64[]) { 2, 0 }, 2, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL));
    WITH (e2, cr_tensor_new_full ((const gint64[]) { 0, 2 }, 2, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL));
    WITH (z, cr_kernel_mm (e1, e2, &error));
    CHECK_EXACT (z, CR_DTYPE_FLOAT32, 2, S (2, 2), { 0, 0, 0, 0 });
  }

  g_assert_null (cr_kernel_mm (a, a, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  g_clear_error (&error);
  {
    WITH (v, F32 (1, S (3), { 1, 2, 3 }));
    WITH (bd, cr_kernel_cast (b, CR_DTYPE_FLOAT64, NULL));
    WITH (bb, cr_kernel_cast (b, CR_DTYPE_BOOL, NULL));
    WITH (ab, cr_kernel_cast (a, CR_DTYPE_BOOL, NULL));

    g_assert_null (cr_kernel_mm (a, v, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "mat2 must be a matrix");
    g_clear_error (&error);
    g_assert_null (cr_kernel_mm (v, b, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "self must be a matrix");
    g_clear_error (&error);
    g_assert_null (cr_kernel_mm (a, bd, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "expected scalar type Float but found Double");
    g_clear_error (&error);
    g_assert_null (cr_kernel_mm (ab, b, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    g_clear_error (&error);
    g_assert_null (cr_kernel_mm (a, bb, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "expected scalar type Float but found Bool");
  }
}

static void
test_bmm (void)
{
  g_autoptr(GError) error = NULL;
  WITH (f1, arange_f32 (24));
  WITH (f2, arange_f32 (40));
  WITH (x, reshape (f1, 3, (const gint64[]) { 2, 3, 4 }));
  WITH (y0, reshape (f2, 3, (const gint64[]) { 2, 4, 5 }));
  WITH (half, scalar (0.5, CR_DTYPE_FLOAT64, TRUE));
  WITH (y, cr_kernel_binary (CR_BINARY_MUL, y0, half, NULL));
  /* torch.bmm(torch.arange(24.).reshape(2, 3, 4), torch.arange(40.).reshape(2, 4, 5) * 0.5) */
  WITH (z, cr_kernel_bmm (x, y, &error));

  g_assert_no_error (error);
  CHECK_EXACT (z, CR_DTYPE_FLOAT32, 3, S (2, 3, 5),
               { 35, 38, 41, 44, 47, 95, 106, 117, 128, 139, 155, 174, 193, 212, 231,
                 755, 782, 809, 836, 863, 975, 1010, 1045, 1080, 1115, 1195, 1238, 1281, 1324, 1367 });
  {
    /* Batches of transposed matrices: x.transpose(1, 2) @ x -> (2, 4, 4); check one entry:
     * (x[1].t() @ x[1])[2, 3] = 14*15 + 18*19 + 22*23 = 1058 */
    WITH (xt, cr_tensor_new_view (x, (const gint64[]) { 2, 4, 3 }, 3, (const gint64[]) { 12, 1, 4 }, 0));
    WITH (w, cr_kernel_bmm (xt, x, &error));
    g_assert_no_error (error);
    g_assert_cmpfloat (cr_tensor_get_flat (w, 16 + 2 * 4 + 3), ==, 1058);
  }

  g_assert_null (cr_kernel_bmm (x, x, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3].");
  g_clear_error (&error);
  g_assert_null (cr_kernel_bmm (f1, x, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "batch1 must be a 3D tensor");
  g_clear_error (&error);
  g_assert_null (cr_kernel_bmm (x, f1, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "batch2 must be a 3D tensor");
}

/* ---- indexing ------------------------------------------------------------------ */

static void
test_cat (void)
{
  g_autoptr(GError) error = NULL;
  WITH (a, I64 (2, S (1, 2), { 1, 2 }));
  WITH (b, F32 (2, S (2, 2), { 0.5, 1.5, 2.5, 3.5 }));
  WITH (c, F32 (2, S (2, 1), { 5, 6 }));
  WITH (e, F32 (1, S (0), { 0 }));
  WITH (v, F32 (1, S (3), { 0, 0, 0 }));

  {
    /* torch.cat([torch.tensor([[1, 2]]), torch.tensor([[0.5, 1.5], [2.5, 3.5]])]) -> float32 */
    CrTensor *list[] = { a, b };
    WITH (y, cr_kernel_cat (list, 2, 0, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (3, 2), { 1, 2, 0.5, 1.5, 2.5, 3.5 });
  }
  {
    /* torch.cat([b, c], 1); an empty 1-d tensor is skipped */
    CrTensor *list[] = { b, e, c };
    WITH (y, cr_kernel_cat (list, 3, -1, &error));
    g_assert_no_error (error);
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (2, 3), { 0.5, 1.5, 5, 2.5, 3.5, 6 });
  }
  {
    CrTensor *list[] = { b, c };
    g_assert_null (cr_kernel_cat (list, 2, 0, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR,
                 "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 1 "
                 "for tensor number 1 in the list.");
    g_clear_error (&error);
  }
  {
    CrTensor *list[] = { b, v };
    g_assert_null (cr_kernel_cat (list, 2, 0, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "Tensors must have same number of dimensions: got 2 and 1");
    g_clear_error (&error);
    g_assert_null (cr_kernel_cat (list, 1, 2, &error));
    check_error (error, CR_EXC_INDEX_ERROR,
                 "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    g_clear_error (&error);
    g_assert_null (cr_kernel_cat (list, 0, 0, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "torch.cat(): expected a non-empty list of Tensors");
    g_clear_error (&error);
  }
  {
    WITH (z, scalar (1, CR_DTYPE_FLOAT32, FALSE));
    CrTensor *list[] = { z, z };
    g_assert_null (cr_kernel_cat (list, 2, 0, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "zero-dimensional tensor (at position 0) cannot be concatenated");
  }
}

static void
test_take_put_nonzero (void)
{
  g_autoptr(GError) error = NULL;
  WITH (flat, arange_f32 (6));
  WITH (x, reshape (flat, 2, (const gint64[]) { 2, 3 }));
  WITH (xt, cr_tensor_new_view (x, (const gint64[]) { 3, 2 }, 2, (const gint64[]) { 1, 3 }, 0));
  WITH (idx, I64 (2, S (2, 2), { 0, 1, -1, 4 }));

  {
    /* torch.arange(6.).reshape(2, 3).t().take(torch.tensor([[0, 1], [-1, 4]])) */
    WITH (y, cr_kernel_take (xt, idx, &error));
    CHECK_EXACT (y, CR_DTYPE_FLOAT32, 2, S (2, 2), { 0, 3, 5, 2 });
  }
  {
    WITH (bad, I64 (1, S (1), { 6 }));
    WITH (fidx, F32 (1, S (1), { 1 }));
    g_assert_null (cr_kernel_take (x, bad, &error));
    check_error (error, CR_EXC_INDEX_ERROR, "index 6 is out of bounds for dimension 0 with size 6");
    g_clear_error (&error);
    g_assert_null (cr_kernel_take (x, fidx, &error));
    check_error (error, CR_EXC_RUNTIME_ERROR, "take(): Expected a long tensor for index, but got Float");
    g_clear_error (&error);
  }
  {
    /* d = torch.zeros(3); d.put_(torch.tensor([1, 1, -1]), torch.tensor([1., 2., 5.]), accumulate=True)
     * -> [0, 3, 5]; without accumulate the last write wins -> [0, 2, 5] */
    WITH (d, F32 (1, S (3), { 0, 0, 0 }));
    WITH (d2, F32 (1, S (3), { 0, 0, 0 }));
    WITH (pi, I64 (1, S (3), { 1, 1, -1 }));
    WITH (pv, F32 (1, S (3), { 1, 2, 5 }));
    g_assert_true (cr_kernel_put (d, pi, pv, TRUE, &error));
    g_assert_true (cr_kernel_put (d2, pi, pv, FALSE, &error));
    CHECK_EXACT (d, CR_DTYPE_FLOAT32, 1, S (3), { 0, 3, 5 });
    CHECK_EXACT (d2, CR_DTYPE_FLOAT32, 1, S (3), { 0, 2, 5 });
  }
  {
    /* Into a transposed view, by its logical positions: xt.put_([0, 1], 9.) writes x[0,0], x[0,1]. */
    WITH (m, F32 (2, S (2, 3), { 0, 1, 2, 3, 4, 5 }));
    WITH (mt, cr_tensor_new_view (m, (const gint64[]) { 3, 2 }, 2, (const gint64[]) { 1, 3 }, 0));
    WITH (pi, I64 (1, S (2), { 0, 1 }));
    WITH (nine, scalar (9, CR_DTYPE_FLOAT32, FALSE));
    g_assert_true (cr_kernel_put (mt, pi, nine, FALSE, &error));
    /* mt logical [0] = m[0,0], [1] = m[1,0] */
    CHECK_EXACT (m, CR_DTYPE_FLOAT32, 2, S (2, 3), { 9, 1, 2, 9, 4, 5 });
  }
  {
    /* torch.tensor([[0., 1.], [nan, 0.]]).flatten().nonzero() -> [1, 2] */
    WITH (msk, F32 (2, S (2, 2), { 0, 1, NAN, 0 }));
    WITH (nz, cr_kernel_nonzero_flat (msk, &error));
    WITH (b, BOOL (1, S (4), { 1, 0, 0, 1 }));
    WITH (nzb, cr_kernel_nonzero_flat (b, &error));
    CHECK_EXACT (nz, CR_DTYPE_INT64, 1, S (2), { 1, 2 });
    CHECK_EXACT (nzb, CR_DTYPE_INT64, 1, S (2), { 0, 3 });
  }
}

static void
test_any_all_allclose (void)
{
  g_autoptr(GError) error = NULL;
  gboolean close = FALSE;
  WITH (z, F32 (1, S (3), { 0, 0, 0 }));
  WITH (m, F32 (1, S (3), { 0, NAN, 0 }));
  WITH (o, BOOL (1, S (2), { 1, 1 }));
  WITH (e, F32 (1, S (0), { 0 }));
  WITH (a, F32 (1, S (2), { 1, INFINITY }));
  WITH (b, F32 (1, S (2), { 1.000001, INFINITY }));
  WITH (c, F32 (1, S (2), { 1.1, INFINITY }));

  g_assert_false (cr_kernel_any (z));
  g_assert_true (cr_kernel_any (m));
  g_assert_false (cr_kernel_all (m));
  g_assert_true (cr_kernel_all (o));
  /* torch.tensor([]).all() is True, .any() False */
  g_assert_true (cr_kernel_all (e));
  g_assert_false (cr_kernel_any (e));

  /* torch.allclose(a, b) True (inf == inf), torch.allclose(a, c) False */
  g_assert_true (cr_kernel_allclose (a, b, 1e-5, 1e-8, &close, &error));
  g_assert_true (close);
  g_assert_true (cr_kernel_allclose (a, c, 1e-5, 1e-8, &close, &error));
  g_assert_false (close);
  g_assert_true (cr_kernel_allclose (m, m, 1e-5, 1e-8, &close, &error));
  g_assert_false (close);
  g_assert_false (cr_kernel_allclose (a, z, 1e-5, 1e-8, &close, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
}

/* ---- random --------------------------------------------------------------------- */

static void
test_random (void)
{
  g_autoptr(GError) error = NULL;
  CrGenerator *g1 = cr_generator_new (42);
  CrGenerator *g2 = cr_generator_new (42);
  CrGenerator *d = cr_generator_new_default ();
  const gint64 shape[] = { 100001 };

  g_assert_cmpuint (cr_generator_initial_seed (g1), ==, 42);
  g_assert_cmpuint (cr_generator_initial_seed (d), ==, G_GUINT64_CONSTANT (67280421310721));
  {
    WITH (a, cr_kernel_randn (g1, shape, 1, CR_DTYPE_FLOAT32, &error));
    WITH (b, cr_kernel_randn (g2, shape, 1, CR_DTYPE_FLOAT32, &error));
    WITH (c, cr_kernel_randn (g1, shape, 1, CR_DTYPE_FLOAT32, &error));
    WITH (mean, cr_kernel_mean (a, NULL, 0, FALSE, &error));
    WITH (sq, cr_kernel_unary (CR_UNARY_SQUARE, a, &error));
    WITH (var, cr_kernel_mean (sq, NULL, 0, FALSE, &error));
    gboolean same = FALSE;

    g_assert_no_error (error);
    /* The same seed, the same numbers; the stream moves on. */
    g_assert_true (cr_kernel_allclose (a, b, 0, 0, &same, &error));
    g_assert_true (same);
    g_assert_true (cr_kernel_allclose (a, c, 0, 0, &same, &error));
    g_assert_false (same);
    /* Standard normal: mean ~ 0, E[x^2] ~ 1 over 100001 samples (5 sigma bounds). */
    g_assert_cmpfloat (fabs (cr_tensor_get_flat (mean, 0)), <, 0.016);
    g_assert_cmpfloat (fabs (cr_tensor_get_flat (var, 0) - 1.0), <, 0.03);
    for (gint64 i = 0; i < a->numel; i++)
      g_assert_true (isfinite (cr_tensor_get_flat (a, i)));
  }
  {
    WITH (u, cr_kernel_rand (g1, shape, 1, CR_DTYPE_FLOAT64, &error));
    WITH (mean, cr_kernel_mean (u, NULL, 0, FALSE, &error));
    WITH (n, cr_kernel_randn (g1, (const gint64[]) { 3 }, 1, CR_DTYPE_FLOAT64, &error));

    for (gint64 i = 0; i < u->numel; i++)
      {
        double v = cr_tensor_get_flat (u, i);
        g_assert_true (v >= 0.0 && v < 1.0);
      }
    g_assert_cmpfloat (fabs (cr_tensor_get_flat (mean, 0) - 0.5), <, 0.005);
    g_assert_cmpint (n->numel, ==, 3);
  }
  {
    WITH (r, cr_kernel_randint (g1, -3, 4, shape, 1, &error));
    gboolean seen[7] = { FALSE };

    g_assert_true (r->dtype == CR_DTYPE_INT64);
    for (gint64 i = 0; i < r->numel; i++)
      {
        gint64 v = cr_tensor_get_flat_int (r, i);
        g_assert_true (v >= -3 && v < 4);
        seen[v + 3] = TRUE;
      }
    for (int i = 0; i < 7; i++)
      g_assert_true (seen[i]);
  }
  g_assert_null (cr_kernel_randint (g1, 5, 5, shape, 1, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR,
               "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  g_clear_error (&error);

  /* Reseeding restarts the stream. */
  {
    WITH (a, cr_kernel_rand (d, (const gint64[]) { 4 }, 1, CR_DTYPE_FLOAT32, &error));
    WITH (b, NULL);
    gboolean same = FALSE;

    cr_generator_seed (d, G_GUINT64_CONSTANT (67280421310721));
    b = cr_kernel_rand (d, (const gint64[]) { 4 }, 1, CR_DTYPE_FLOAT32, &error);
    g_assert_true (cr_kernel_allclose (a, b, 0, 0, &same, &error));
    g_assert_true (same);
  }
  cr_generator_free (g1);
  cr_generator_free (g2);
  cr_generator_free (d);
}

/* ---- threads -------------------------------------------------------------------------- */

static void
test_parallel_same_result (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 shape[] = { 1024, 1000 };
  CrGenerator *gen = cr_generator_new (7);
  g_autoptr(CrTensor) x = cr_kernel_randn (gen, shape, 2, CR_DTYPE_FLOAT32, &error);
  g_autoptr(CrTensor) row = cr_kernel_randn (gen, &shape[1], 1, CR_DTYPE_FLOAT32, &error);
  CrTensor *r1[6] = { NULL };
  int saved = cr_threads_get ();

  for (int pass = 0; pass < 2; pass++)
    {
      CrTensor *r[6];

      cr_threads_set (pass == 0 ? 1 : 2);
      g_assert_cmpint (cr_threads_get (), ==, pass == 0 ? 1 : 2);
      r[0] = cr_kernel_unary (CR_UNARY_TANH, x, &error);
      r[1] = cr_kernel_binary (CR_BINARY_MUL, x, row, &error);
      r[2] = cr_kernel_sum (x, NULL, 0, FALSE, &error);
      r[3] = cr_kernel_sum (x, (const int[]) { 0 }, 1, FALSE, &error);
      r[4] = cr_kernel_sum (x, (const int[]) { 1 }, 1, FALSE, &error);
      r[5] = cr_kernel_softmax (x, 1, TRUE, &error);
      g_assert_no_error (error);

      for (int k = 0; k < 6; k++)
        {
          if (pass == 0)
            r1[k] = r[k];
          else
            {
              g_assert_cmpint (r[k]->numel, ==, r1[k]->numel);
              g_assert_cmpint (memcmp (cr_tensor_data (r[k]), cr_tensor_data (r1[k]),
                                       (gsize) r[k]->numel * 4), ==, 0);
              cr_tensor_unref (r[k]);
            }
        }
    }
  for (int k = 0; k < 6; k++)
    cr_tensor_unref (r1[k]);
  cr_threads_set (saved);
  cr_generator_free (gen);
}

typedef struct {
  GMutex   lock;
  gint64   covered;
  guint8  *hits;
  int      nested_calls;
} CoverCtx;

static void
cover_inner (gint64   begin,
             gint64   end,
             gpointer data)
{
  CoverCtx *c = data;

  g_mutex_lock (&c->lock);
  c->nested_calls++;
  g_mutex_unlock (&c->lock);
}

static void
cover_chunk (gint64   begin,
             gint64   end,
             gpointer data)
{
  CoverCtx *c = data;

  for (gint64 i = begin; i < end; i++)
    c->hits[i]++;
  /* A parallel_for inside a chunk runs inline instead of waiting on the pool. */
  cr_parallel_for (1 << 20, 1, cover_inner, c);
  g_mutex_lock (&c->lock);
  c->covered += end - begin;
  g_mutex_unlock (&c->lock);
}

static void
test_parallel_for (void)
{
  const gint64 n = 1000003;
  CoverCtx c = { .hits = g_new0 (guint8, n) };
  int saved = cr_threads_get ();

  g_mutex_init (&c.lock);
  cr_threads_set (4);
  for (int round = 0; round < 20; round++)
    cr_parallel_for (n, 1000, cover_chunk, &c);
  /* Every index exactly once per call; nested calls ran whole (one call each). */
  g_assert_cmpint (c.covered, ==, 20 * n);
  for (gint64 i = 0; i < n; i++)
    g_assert_cmpint (c.hits[i], ==, 20);
  g_assert_cmpint (c.nested_calls, >=, 20);
  g_assert_cmpint (c.nested_calls, <=, 20 * 4);

  /* Too small for the pool: one inline call. */
  c.nested_calls = 0;
  cr_parallel_for (100, 1000, cover_inner, &c);
  g_assert_cmpint (c.nested_calls, ==, 1);

  cr_threads_set (saved);
  g_mutex_clear (&c.lock);
  g_free (c.hits);
}

/* A CUDA tensor reaching a CPU kernel without a CUDA backend: an error, not a crash. */
static void
test_no_cuda_backend (void)
{
  g_autoptr(GError) error = NULL;
  WITH (x, F32 (1, S (2), { 1, 2 }));

  x->device = CR_DEVICE_CUDA;
  g_assert_null (cr_kernel_unary (CR_UNARY_EXP, x, &error));
  check_error (error, CR_EXC_RUNTIME_ERROR, "Torch not compiled with CUDA enabled");
  g_clear_error (&error);
  g_assert_null (cr_kernel_sum (x, NULL, 0, FALSE, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_false (cr_kernel_any (x));
  x->device = CR_DEVICE_CPU;
}

/* int64's minimum divided by -1 overflows: PyTorch 1.13 dies of SIGFPE on
 * x86 (torch.tensor([-2**63]) // -1), so there is no PyTorch value to copy;
 * it wraps to itself and the remainder is 0 (NumPy's answers), with no trap
 * and no UB (the sanitizer build checks). abs and neg of it wrap too, as in
 * PyTorch: tensor([-9223372036854775808]). */
static void
test_int64_min_edges (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) a = cr_tensor_new_empty ((const gint64[]) { 3 }, 1, CR_DTYPE_INT64,
                                               CR_DEVICE_CPU, &error);
  g_autoptr(CrTensor) minus_one = scalar (-1, CR_DTYPE_INT64, FALSE);
  gint64 *d;

  g_assert_no_error (error);
  d = a->storage->data;
  d[0] = G_MININT64;
  d[1] = -7;
  d[2] = G_MAXINT64;
  {
    g_autoptr(CrTensor) q = cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, a, minus_one, &error);
    g_autoptr(CrTensor) r = cr_kernel_binary (CR_BINARY_REMAINDER, a, minus_one, &error);
    g_autoptr(CrTensor) n = cr_kernel_unary (CR_UNARY_NEG, a, &error);
    g_autoptr(CrTensor) b = cr_kernel_unary (CR_UNARY_ABS, a, &error);
    g_autoptr(CrTensor) sq = cr_kernel_unary (CR_UNARY_SQUARE, a, &error);

    g_assert_no_error (error);
    g_assert_cmpint (cr_tensor_get_flat_int (q, 0), ==, G_MININT64);
    g_assert_cmpint (cr_tensor_get_flat_int (q, 1), ==, 7);
    g_assert_cmpint (cr_tensor_get_flat_int (q, 2), ==, -G_MAXINT64);
    for (int i = 0; i < 3; i++)
      g_assert_cmpint (cr_tensor_get_flat_int (r, i), ==, 0);
    g_assert_cmpint (cr_tensor_get_flat_int (n, 0), ==, G_MININT64);
    g_assert_cmpint (cr_tensor_get_flat_int (n, 2), ==, -G_MAXINT64);
    g_assert_cmpint (cr_tensor_get_flat_int (b, 0), ==, G_MININT64);
    g_assert_cmpint (cr_tensor_get_flat_int (b, 1), ==, 7);
    /* torch.tensor([-2**63, -7, 2**63 - 1]).square(): [0, 49, 1] */
    g_assert_cmpint (cr_tensor_get_flat_int (sq, 0), ==, 0);
    g_assert_cmpint (cr_tensor_get_flat_int (sq, 1), ==, 49);
    g_assert_cmpint (cr_tensor_get_flat_int (sq, 2), ==, 1);
  }
}

/* torch.tensor([1., 2., nan]).clamp(min=nan, max=1) is all NaN in 1.13; with
 * one NaN bound x is kept; an int tensor with an infinite or huge bound
 * computes in float32 (torch.tensor([1, 2]).clamp(max=inf): tensor([1., 2.])),
 * and a bound past float32's range fails as in PyTorch. */
static void
test_clamp_nan_and_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) x = F32 (1, S (3), { 1, 2, NAN });
  g_autoptr(CrTensor) i = I64 (1, S (2), { 1, 2 });
  g_autoptr(CrTensor) both = cr_kernel_clamp (x, TRUE, NAN, TRUE, 1, &error);
  g_autoptr(CrTensor) min_only = cr_kernel_clamp (x, TRUE, NAN, FALSE, 0, &error);
  g_autoptr(CrTensor) max_only = cr_kernel_clamp (x, FALSE, 0, TRUE, NAN, &error);
  g_autoptr(CrTensor) inf_max = cr_kernel_clamp (i, FALSE, 0, TRUE, INFINITY, &error);
  g_autoptr(CrTensor) big_min = cr_kernel_clamp (i, TRUE, -1e19, FALSE, 0, &error);
  g_autoptr(CrTensor) huge = NULL;

  g_assert_no_error (error);
  CHECK_EXACT (both, CR_DTYPE_FLOAT32, 1, S (3), { NAN, NAN, NAN });
  CHECK_EXACT (min_only, CR_DTYPE_FLOAT32, 1, S (3), { 1, 2, NAN });
  CHECK_EXACT (max_only, CR_DTYPE_FLOAT32, 1, S (3), { 1, 2, NAN });
  CHECK_EXACT (inf_max, CR_DTYPE_FLOAT32, 1, S (2), { 1, 2 });
  CHECK_EXACT (big_min, CR_DTYPE_FLOAT32, 1, S (2), { 1, 2 });
  /* torch.tensor([1, 2]).clamp(min=1e300) */
  huge = cr_kernel_clamp (i, TRUE, 1e300, FALSE, 0, &error);
  g_assert_null (huge);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==, "value cannot be converted to type float without overflow");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/kernels/unary/float", test_unary_float);
  g_test_add_func ("/core/kernels/unary/dtypes", test_unary_dtypes);
  g_test_add_func ("/core/kernels/unary/strided", test_unary_strided);
  g_test_add_func ("/core/kernels/binary/broadcast", test_binary_broadcast);
  g_test_add_func ("/core/kernels/binary/strided", test_binary_strided);
  g_test_add_func ("/core/kernels/binary/scalars", test_binary_scalars);
  g_test_add_func ("/core/kernels/binary/int", test_binary_int);
  g_test_add_func ("/core/kernels/binary/bool", test_binary_bool);
  g_test_add_func ("/core/kernels/binary/errors", test_binary_errors);
  g_test_add_func ("/core/kernels/binary/promotion-table", test_promotion_table);
  g_test_add_func ("/core/kernels/binary/promotion-narrow", test_promotion_narrow);
  g_test_add_func ("/core/kernels/binary/narrow-integers", test_narrow_integers);
  g_test_add_func ("/core/kernels/binary/into", test_binary_into);
  g_test_add_func ("/core/kernels/binary/add-scaled", test_add_scaled);
  g_test_add_func ("/core/kernels/clamp-where", test_clamp_where);
  g_test_add_func ("/core/kernels/copy-fill-cast", test_copy_fill_cast);
  g_test_add_func ("/core/kernels/reduce/sum", test_sum);
  g_test_add_func ("/core/kernels/reduce/sum-accuracy", test_sum_accuracy);
  g_test_add_func ("/core/kernels/reduce/sum-to-shape", test_sum_to_shape);
  g_test_add_func ("/core/kernels/reduce/max", test_max);
  g_test_add_func ("/core/kernels/softmax", test_softmax);
  g_test_add_func ("/core/kernels/matmul/mm", test_mm);
  g_test_add_func ("/core/kernels/matmul/bmm", test_bmm);
  g_test_add_func ("/core/kernels/index/cat", test_cat);
  g_test_add_func ("/core/kernels/index/take-put-nonzero", test_take_put_nonzero);
  g_test_add_func ("/core/kernels/any-all-allclose", test_any_all_allclose);
  g_test_add_func ("/core/kernels/random", test_random);
  g_test_add_func ("/core/kernels/threads/parallel-for", test_parallel_for);
  g_test_add_func ("/core/kernels/threads/same-result", test_parallel_same_result);
  g_test_add_func ("/core/kernels/no-cuda-backend", test_no_cuda_backend);
  g_test_add_func ("/core/kernels/int64-min-edges", test_int64_min_edges);
  g_test_add_func ("/core/kernels/clamp-nan-and-range", test_clamp_nan_and_range);
  return g_test_run ();
}
