/* test-ops-nn.c — softmax, log_softmax and the losses against PyTorch 1.13:
 * values (float64 and float32), gradients, grad_fn names, reductions, error
 * texts, and first and second finite-difference checks (float64). */
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "gradcheck.h"
#include "test-util.h"

/* ---- helpers ------------------------------------------------------------- */

/* z from the grad_fn_nn conformance case. */
static const double z_values[] = { 1.0, -2.0, 0.5, 0.25, 1.5, -1.0 };

static CrTensor *
make_z (gboolean requires_grad)
{
  return cr_gradcheck_tensor (z_values, (gint64[]) { 2, 3 }, 2, requires_grad);
}

/* The float64 results here match PyTorch's to the last digits: 1e-12. */
static void
assert_values (const CrTensor *t,
               const double   *expected,
               gint64          n)
{
  cr_test_assert_values_eps (t, expected, n, 1e-12);
}

/* ---- softmax ---------------------------------------------------------------- */

static void
test_softmax (void)
{
  g_autoptr(CrTensor) z = make_z (TRUE);
  g_autoptr(CrTensor) s1 = NULL, s0 = NULL, l1 = NULL, sc = NULL;
  g_autoptr(CrTensor) scalar = cr_gradcheck_tensor ((double[]) { 2.0 }, NULL, 0, TRUE);
  g_autoptr(CrTensor) ints = cr_test_long_tensor ((gint64[]) { 1, 2 }, (gint64[]) { 1, 2 }, 2);
  g_autoptr(GError) error = NULL;

  /* torch (float64) */
  s1 = cr_softmax (z, 1, &error);
  g_assert_no_error (error);
  assert_values (s1, (double[]) { 0.6037488961486258, 0.030058887569574023, 0.3661922162818002,
                                  0.20934307548219694, 0.7306791292026887, 0.059977795315114275 }, 6);
  g_assert_cmpstr (cr_test_fn_name (s1), ==, "SoftmaxBackward0");
  s0 = cr_softmax (z, -2, &error);
  g_assert_no_error (error);
  assert_values (s0, (double[]) { 0.679178699175393, 0.029312230751356316, 0.8175744761936437,
                                  0.32082130082460697, 0.9706877692486436, 0.18242552380635632 }, 6);
  l1 = cr_log_softmax (z, 1, &error);
  g_assert_no_error (error);
  assert_values (l1, (double[]) { -0.5045969023422835, -3.5045969023422834, -1.0045969023422834,
                                  -1.563780863337258, -0.31378086333725796, -2.813780863337258 }, 6);
  g_assert_cmpstr (cr_test_fn_name (l1), ==, "LogSoftmaxBackward0");

  sc = cr_softmax (scalar, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sc->ndim, ==, 0);
  assert_values (sc, (double[]) { 1.0 }, 1);

  g_assert_null (cr_softmax (z, 2, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  g_clear_error (&error);
  g_assert_null (cr_softmax (ints, -1, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  g_clear_error (&error);
  g_assert_null (cr_log_softmax (ints, 0, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "\"softmax_kernel_impl\" not implemented for 'Long'");
}

static void
test_softmax_float32 (void)
{
  g_autoptr(CrTensor) z64 = make_z (FALSE);
  g_autoptr(CrTensor) z = cr_kernel_cast (z64, CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) s = cr_softmax (z, 1, NULL);

  g_assert_cmpint (s->dtype, ==, CR_DTYPE_FLOAT32);
  /* torch float32: printed to 4 digits the same, within a float's rounding */
  cr_test_assert_values_eps (s, (double[]) { 0.6037489175796509, 0.030058886855840683, 0.3661922216415405,
                                     0.2093430906534195, 0.7306791543960571, 0.05997779592871666 },
                     6, 1e-7);
}

/* ---- losses --------------------------------------------------------------------- */

static void
test_grad_fn_nn_case (void)
{
  g_autoptr(CrTensor) z = make_z (TRUE);
  g_autoptr(CrTensor) target = cr_gradcheck_tensor ((double[]) { 0.5, -1.0, 1.0, 0.0, 2.0, -0.5 },
                                                    (gint64[]) { 2, 3 }, 2, FALSE);
  g_autoptr(CrTensor) labels = cr_gradcheck_tensor ((double[]) { 1, 0, 1, 0, 1, 0 },
                                                    (gint64[]) { 2, 3 }, 2, FALSE);
  g_autoptr(CrTensor) classes = cr_test_long_tensor ((gint64[]) { 0, 2 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) mse = NULL, bce = NULL, ce = NULL, t1 = NULL, total = NULL;
  g_autoptr(GError) error = NULL;

  mse = cr_mse_loss (z, target, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  assert_values (mse, (double[]) { 0.34375 }, 1);
  g_assert_cmpstr (cr_test_fn_name (mse), ==, "MseLossBackward0");

  bce = cr_bce_with_logits (z, labels, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  assert_values (bce, (double[]) { 0.3758135113535202 }, 1);
  g_assert_cmpstr (cr_test_fn_name (bce), ==, "BinaryCrossEntropyWithLogitsBackward0");

  ce = cr_cross_entropy (z, classes, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  assert_values (ce, (double[]) { 1.6591888828397707 }, 1);
  g_assert_cmpstr (cr_test_fn_name (ce), ==, "NllLossBackward0");
  g_assert_cmpstr (cr_test_next_name (ce->grad_fn, 0), ==, "LogSoftmaxBackward0");
  g_assert_cmpuint (ce->grad_fn->n_inputs, ==, 1);

  t1 = cr_add (mse, bce, NULL);
  total = cr_add (t1, ce, NULL);
  cr_test_backward (total);
  /* torch: z.grad */
  assert_values (z->grad, (double[]) { -0.07628245548735296, -0.29843673587819336,
                                       -0.04649400332545746, 0.2817009545553981,
                                       0.16826864396695165, -0.591854198780777 }, 6);
}

static void
test_reductions (void)
{
  g_autoptr(CrTensor) z = make_z (TRUE);
  g_autoptr(CrTensor) target = cr_gradcheck_tensor ((double[]) { 0.5, -1.0, 1.0, 0.0, 2.0, -0.5 },
                                                    (gint64[]) { 2, 3 }, 2, FALSE);
  g_autoptr(CrTensor) labels = cr_gradcheck_tensor ((double[]) { 1, 0, 1, 0, 1, 0 },
                                                    (gint64[]) { 2, 3 }, 2, FALSE);
  g_autoptr(CrTensor) classes = cr_test_long_tensor ((gint64[]) { 0, 2 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) a = NULL, b = NULL, c = NULL, d = NULL;

  a = cr_mse_loss (z, target, CR_REDUCTION_SUM, NULL);
  assert_values (a, (double[]) { 2.0625 }, 1);
  b = cr_bce_with_logits (z, labels, CR_REDUCTION_NONE, NULL);
  assert_values (b, (double[]) { 0.31326168751822286, 0.1269280110429726, 0.4740769841801067,
                                 0.8259394198788437, 0.20141327798275246, 0.31326168751822286 }, 6);
  g_assert_cmpstr (cr_test_fn_name (b), ==, "BinaryCrossEntropyWithLogitsBackward0");
  c = cr_cross_entropy (z, classes, CR_REDUCTION_NONE, NULL);
  assert_values (c, (double[]) { 0.5045969023422835, 2.813780863337258 }, 2);
  d = cr_cross_entropy (z, classes, CR_REDUCTION_SUM, NULL);
  assert_values (d, (double[]) { 3.3183777656795415 }, 1);
}

static void
test_float32_losses (void)
{
  g_autoptr(CrTensor) z64 = make_z (FALSE);
  g_autoptr(CrTensor) z = cr_kernel_cast (z64, CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) classes = cr_test_long_tensor ((gint64[]) { 0, 2 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) ce = cr_cross_entropy (z, classes, CR_REDUCTION_MEAN, NULL);
  g_autoptr(CrTensor) big = cr_tensor_new_from_data ((float[]) { 100, -100 }, (gint64[]) { 2 }, 1,
                                                     CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) lab = cr_tensor_new_from_data ((float[]) { 0, 1 }, (gint64[]) { 2 }, 1,
                                                     CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) b = cr_bce_with_logits (big, lab, CR_REDUCTION_MEAN, NULL);

  g_assert_cmpint (ce->dtype, ==, CR_DTYPE_FLOAT32);
  /* torch float32: 1.6591888666152954 */
  cr_test_assert_values_eps (ce, (double[]) { 1.6591888666152954 }, 1, 2e-7);
  /* Stable for large logits (torch: 100.0). */
  assert_values (b, (double[]) { 100.0 }, 1);
}

static void
test_bce (void)
{
  g_autoptr(CrTensor) p = cr_gradcheck_tensor ((double[]) { 0.2, 0.7, 0.9 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) y = cr_gradcheck_tensor ((double[]) { 0, 1, 0.5 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) l = NULL;
  g_autoptr(CrTensor) edge = NULL;
  g_autoptr(CrTensor) ex = cr_tensor_new_from_data ((float[]) { 0, 1, 0.5 }, (gint64[]) { 3 }, 1,
                                                    CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) ey = cr_tensor_new_from_data ((float[]) { 1, 0, 0.5 }, (gint64[]) { 3 }, 1,
                                                    CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) bad = cr_tensor_new_from_data ((float[]) { 0, 1, 1.5 }, (gint64[]) { 3 }, 1,
                                                     CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) two = cr_tensor_new_from_data ((float[]) { 0.2f, 0.3f }, (gint64[]) { 2 }, 1,
                                                     CR_DTYPE_FLOAT32, NULL);
  g_autoptr(CrTensor) ey64 = cr_kernel_cast (ey, CR_DTYPE_FLOAT64, NULL);
  g_autoptr(GError) error = NULL;

  l = cr_binary_cross_entropy (p, y, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (l), ==, "BinaryCrossEntropyBackward0");
  g_assert_cmpstr (cr_test_next_name (l->grad_fn, 1), ==, "AccumulateGrad");
  assert_values (l, (double[]) { 0.594597099859626 }, 1);
  cr_test_backward (l);
  /* torch */
  assert_values (p->grad, (double[]) { 0.4166666666666666, -0.4761904761904762,
                                       1.4814814814814818 }, 3);
  assert_values (y->grad, (double[]) { 0.46209812037329684, -0.28243262012906784,
                                       -0.7324081924454066 }, 3);

  /* log is clamped at -100 (torch: 66.89771270751953) */
  edge = cr_binary_cross_entropy (ex, ey, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  cr_test_assert_values_eps (edge, (double[]) { 66.89771270751953 }, 1, 1e-5);

  g_assert_null (cr_binary_cross_entropy (bad, ey, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "all elements of input should be between 0 and 1");
  g_clear_error (&error);
  g_assert_null (cr_binary_cross_entropy (two, ey, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_VALUE_ERROR,
                "Using a target size (torch.Size([3])) that is different to the input size "
                "(torch.Size([2])) is deprecated. Please ensure they have the same size.");
  g_clear_error (&error);
  g_assert_null (cr_binary_cross_entropy (ex, ey64, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "Found dtype Double but expected Float");
  g_clear_error (&error);
  g_assert_null (cr_bce_with_logits (two, ey, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_VALUE_ERROR,
                "Target size (torch.Size([3])) must be the same as input size (torch.Size([2]))");
}

static void
test_mse_broadcast (void)
{
  g_autoptr(CrTensor) x = make_z (TRUE);
  g_autoptr(CrTensor) t = cr_gradcheck_tensor ((double[]) { 1, 2, 3 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) t5 = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5 }, (gint64[]) { 5 }, 1,
                                                FALSE);
  g_autoptr(CrTensor) l = NULL;
  g_autoptr(GError) error = NULL;

  /* torch: the target is expanded (ExpandBackward0 on its edge) */
  l = cr_mse_loss (x, t, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_next_name (l->grad_fn, 0), ==, "AccumulateGrad");
  g_assert_cmpstr (cr_test_next_name (l->grad_fn, 1), ==, "ExpandBackward0");
  cr_test_backward (l);
  g_assert_nonnull (t->grad);
  g_assert_cmpint (t->grad->numel, ==, 3);

  g_assert_null (cr_mse_loss (x, t5, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "The size of tensor a (3) must match the size of tensor b (5) at non-singleton "
                "dimension 1");
}

static void
test_nll (void)
{
  g_autoptr(CrTensor) lp = cr_gradcheck_tensor ((double[]) { -0.5, -1.0, -2.0, -0.1, -3.0, -0.7,
                                                             -1.5, -0.2, -0.9 },
                                                (gint64[]) { 3, 3 }, 2, TRUE);
  g_autoptr(CrTensor) t = cr_test_long_tensor ((gint64[]) { 2, 0, 1 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) ti = cr_test_long_tensor ((gint64[]) { 2, -100, 1 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) t2 = cr_test_long_tensor ((gint64[]) { 0, 1 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) t5 = cr_test_long_tensor ((gint64[]) { 0, 5, 1 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) tn = cr_test_long_tensor ((gint64[]) { 0, -1, 1 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) t0 = cr_test_long_tensor ((gint64[]) { 1 }, NULL, 0);
  g_autoptr(CrTensor) tf = cr_tensor_new_zeros ((gint64[]) { 3 }, 1, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) row = NULL;
  g_autoptr(CrTensor) a = NULL, b = NULL, c = NULL, d = NULL;
  g_autoptr(GError) error = NULL;

  /* torch: 0.7666666666666666, 1.1, [2.0, 0.0, 0.2], 1.0 */
  a = cr_nll_loss (lp, t, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  assert_values (a, (double[]) { 0.7666666666666666 }, 1);
  g_assert_cmpstr (cr_test_fn_name (a), ==, "NllLossBackward0");
  b = cr_nll_loss (lp, ti, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  assert_values (b, (double[]) { 1.1 }, 1);
  c = cr_nll_loss (lp, ti, CR_REDUCTION_NONE, &error);
  g_assert_no_error (error);
  assert_values (c, (double[]) { 2.0, 0.0, 0.2 }, 3);
  cr_test_backward (b);
  /* -1/2 at the two targets that count */
  assert_values (lp->grad, (double[]) { 0, 0, -0.5, 0, 0, 0, 0, -0.5, 0 }, 9);

  row = cr_index_get (lp, (CrIndexItem[]) { { .kind = CR_INDEX_INT, .value = 0 } }, 1, NULL);
  d = cr_nll_loss (row, t0, CR_REDUCTION_MEAN, &error);
  g_assert_no_error (error);
  g_assert_cmpint (d->ndim, ==, 0);
  assert_values (d, (double[]) { 1.0 }, 1);

  g_assert_null (cr_nll_loss (lp, t2, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_VALUE_ERROR,
                "Expected input batch_size (3) to match target batch_size (2).");
  g_clear_error (&error);
  g_assert_null (cr_nll_loss (lp, t5, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "Target 5 is out of bounds.");
  g_clear_error (&error);
  g_assert_null (cr_nll_loss (lp, tn, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "Target -1 is out of bounds.");
  g_clear_error (&error);
  g_assert_null (cr_nll_loss (lp, tf, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "expected scalar type Long but found Float");
  g_clear_error (&error);
  g_assert_null (cr_cross_entropy (lp, t2, CR_REDUCTION_MEAN, &error));
  cr_test_assert_error (error, CR_EXC_VALUE_ERROR,
                "Expected input batch_size (3) to match target batch_size (2).");
}

/* ---- gradchecks ------------------------------------------------------------------- */

typedef enum {
  N_SOFTMAX, N_LOG_SOFTMAX, N_SOFTMAX_T, N_MSE, N_MSE_NONE, N_BCEL, N_BCEL_SUM, N_BCE,
  N_NLL_NONE, N_CE, N_CE_SUM, N_CE_SOFT, N_NLL_WEIGHTED, N_CE_WEIGHTED_NONE, N_BCE_WEIGHTED,
  N_BCEL_WEIGHTED, N_BCEL_POS_WEIGHTED,
} NnFunc;

static CrTensor *
nn_func (CrTensor *const *in,
         guint            n,
         gpointer         user_data,
         GError         **error)
{
  (void) n;
  switch (GPOINTER_TO_INT (user_data))
    {
    case N_SOFTMAX:
      return cr_softmax (in[0], 1, error);
    case N_LOG_SOFTMAX:
      return cr_log_softmax (in[0], 0, error);
    case N_SOFTMAX_T:
      return cr_softmax (in[0], -1, error);
    case N_MSE:
      return cr_mse_loss (in[0], in[1], CR_REDUCTION_MEAN, error);
    case N_MSE_NONE:
      return cr_mse_loss (in[0], in[1], CR_REDUCTION_NONE, error);
    case N_BCEL:
      return cr_bce_with_logits (in[0], in[1], CR_REDUCTION_MEAN, error);
    case N_BCEL_SUM:
      return cr_bce_with_logits (in[0], in[1], CR_REDUCTION_SUM, error);
    case N_BCE:
      return cr_binary_cross_entropy (in[0], in[1], CR_REDUCTION_MEAN, error);
    case N_NLL_NONE:
      {
        g_autoptr(CrTensor) t = cr_test_long_tensor ((gint64[]) { 1, -100, 3 }, (gint64[]) { 3 }, 1);
        return cr_nll_loss (in[0], t, CR_REDUCTION_NONE, error);
      }
    case N_CE:
      {
        g_autoptr(CrTensor) t = cr_test_long_tensor ((gint64[]) { 1, 0, 3 }, (gint64[]) { 3 }, 1);
        return cr_cross_entropy (in[0], t, CR_REDUCTION_MEAN, error);
      }
    case N_CE_SUM:
      {
        g_autoptr(CrTensor) t = cr_test_long_tensor ((gint64[]) { 1, 0, 3 }, (gint64[]) { 3 }, 1);
        return cr_cross_entropy (in[0], t, CR_REDUCTION_SUM, error);
      }
    case N_CE_SOFT:
      return cr_cross_entropy (in[0], in[1], CR_REDUCTION_MEAN, error);
    case N_BCE_WEIGHTED:
      {
        /* A weight per column, broadcast over the rows. */
        g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 0.5, 2.0, 1.0, 1.5 },
                                                     (gint64[]) { 4 }, 1, FALSE);
        return cr_binary_cross_entropy_weighted (in[0], in[1], w, CR_REDUCTION_MEAN, error);
      }
    case N_BCEL_WEIGHTED:
    case N_BCEL_POS_WEIGHTED:
      {
        /* weight per row (3, 1) and pos_weight per column (4), broadcast. */
        g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 0.5, 2.0, 1.0 },
                                                     (gint64[]) { 3, 1 }, 2, FALSE);
        g_autoptr(CrTensor) pw = cr_gradcheck_tensor ((double[]) { 3.0, 0.5, 1.0, 2.0 },
                                                      (gint64[]) { 4 }, 1, FALSE);
        if (GPOINTER_TO_INT (user_data) == N_BCEL_WEIGHTED)
          return cr_bce_with_logits_full (in[0], in[1], w, NULL, CR_REDUCTION_SUM, error);
        return cr_bce_with_logits_full (in[0], in[1], w, pw, CR_REDUCTION_MEAN, error);
      }
    case N_NLL_WEIGHTED:
    case N_CE_WEIGHTED_NONE:
      {
        /* Class weights, and class 2 ignored (ignore_index=2). */
        g_autoptr(CrTensor) t = cr_test_long_tensor ((gint64[]) { 1, 2, 3 }, (gint64[]) { 3 }, 1);
        g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 0.5, 2.0, 1.0, 1.5 },
                                                     (gint64[]) { 4 }, 1, FALSE);
        if (GPOINTER_TO_INT (user_data) == N_NLL_WEIGHTED)
          return cr_nll_loss_full (in[0], t, w, 2, CR_REDUCTION_MEAN, error);
        return cr_cross_entropy_full (in[0], t, w, 2, CR_REDUCTION_NONE, error);
      }
    default:
      g_assert_not_reached ();
    }
}

static void
test_gradcheck (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, -2, 2, 51);
  g_autoptr(CrTensor) xt = cr_gradcheck_rand_transposed ((gint64[]) { 3, 4 }, 2, -2, 2, 52);
  g_autoptr(CrTensor) y = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, -2, 2, 53);
  g_autoptr(CrTensor) yb = cr_gradcheck_rand ((gint64[]) { 4 }, 1, -2, 2, 54);
  g_autoptr(CrTensor) p = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, 0.1, 0.9, 55);
  g_autoptr(CrTensor) q = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, 0, 1, 56);

  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_SOFTMAX), &x, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_LOG_SOFTMAX), &xt, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_SOFTMAX_T), &xt, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_MSE), (CrTensor *[]) { x, y }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_MSE_NONE), (CrTensor *[]) { xt, yb }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_BCEL), (CrTensor *[]) { x, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_BCEL_SUM), (CrTensor *[]) { xt, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_BCE), (CrTensor *[]) { p, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_NLL_NONE), &x, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_CE), &xt, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_CE_SUM), &x, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_CE_SOFT), (CrTensor *[]) { x, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_NLL_WEIGHTED), &x, 1));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_BCE_WEIGHTED), (CrTensor *[]) { p, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_BCEL_WEIGHTED), (CrTensor *[]) { x, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_BCEL_POS_WEIGHTED), (CrTensor *[]) { xt, q }, 2));
  g_assert_true (cr_gradcheck (nn_func, GINT_TO_POINTER (N_CE_WEIGHTED_NONE), &xt, 1));

  /* Second derivatives: the create_graph paths of the backward formulas. */
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_SOFTMAX), &x, 1));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_LOG_SOFTMAX), &xt, 1));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_MSE), (CrTensor *[]) { x, y }, 2));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_BCEL), (CrTensor *[]) { x, q }, 2));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_BCE), (CrTensor *[]) { p, q }, 2));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_CE), &x, 1));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_NLL_NONE), &x, 1));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_NLL_WEIGHTED), &x, 1));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_BCE_WEIGHTED), (CrTensor *[]) { p, q }, 2));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_BCEL_POS_WEIGHTED), (CrTensor *[]) { x, q }, 2));
  g_assert_true (cr_gradgradcheck (nn_func, GINT_TO_POINTER (N_CE_WEIGHTED_NONE), &x, 1));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ops/nn/softmax", test_softmax);
  g_test_add_func ("/ops/nn/softmax-float32", test_softmax_float32);
  g_test_add_func ("/ops/nn/grad-fn-nn-case", test_grad_fn_nn_case);
  g_test_add_func ("/ops/nn/reductions", test_reductions);
  g_test_add_func ("/ops/nn/float32-losses", test_float32_losses);
  g_test_add_func ("/ops/nn/bce", test_bce);
  g_test_add_func ("/ops/nn/mse-broadcast", test_mse_broadcast);
  g_test_add_func ("/ops/nn/nll", test_nll);
  g_test_add_func ("/ops/nn/gradcheck", test_gradcheck);

  return g_test_run ();
}
