/* test-ops-extra.c — var, std, logsumexp, amax/amin, cumsum and the in-place
 * unary ops against PyTorch 1.13: values (float64), grad_fn names, error
 * texts, and first and second finite-difference checks. */
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "gradcheck.h"
#include "test-util.h"

/* z from the grad_fn_nn conformance case. */
static const double z_values[] = { 1.0, -2.0, 0.5, 0.25, 1.5, -1.0 };

static CrTensor *
make_z (gboolean requires_grad)
{
  return cr_gradcheck_tensor (z_values, (gint64[]) { 2, 3 }, 2, requires_grad);
}

typedef enum {
  F_VAR_ALL, F_VAR_1, F_STD_ALL, F_STD_0_KEEP, F_LSE_1, F_LSE_ALL, F_AMAX_1, F_AMIN_ALL,
  F_CUMSUM_1, F_CUMSUM_0, F_EXP_, F_LOG_, F_SIGMOID_, F_NORM_1, F_NORM_3_KEEP, F_NORM_1_P1,
  F_LEAKY, F_ELU, F_SOFTPLUS, F_SILU, F_GELU, F_SPLIT, F_UNBIND, F_FLIP, F_TRIU, F_TRIL, F_TRACE,
  F_SMOOTH_L1, F_REPEAT, F_GATHER, F_INDEX_SELECT, F_DIAG_2D, F_DIAG_1D,
  F_T_, F_UNSQUEEZE_SQUEEZE_, F_SQUEEZE_DIM_, F_CUMPROD_1, F_CUMPROD_0,
  F_LOGCUMSUMEXP_1,
} Which;

static CrTensor *
apply (CrTensor *const *inputs,
       guint            n_inputs,
       gpointer         user_data,
       GError         **error)
{
  CrTensor *x = inputs[0];
  int one = 1, zero = 0;

  switch ((Which) GPOINTER_TO_INT (user_data))
    {
    case F_VAR_ALL:    return cr_var (x, NULL, 0, 1, FALSE, error);
    case F_VAR_1:      return cr_var (x, &one, 1, 0, FALSE, error);
    case F_STD_ALL:    return cr_std (x, NULL, 0, 1, FALSE, error);
    case F_STD_0_KEEP: return cr_std (x, &zero, 1, 1, TRUE, error);
    case F_LSE_1:      return cr_logsumexp (x, &one, 1, FALSE, error);
    case F_LSE_ALL:    return cr_logsumexp (x, (int[]) { 0, 1 }, 2, TRUE, error);
    case F_AMAX_1:     return cr_amax (x, &one, 1, FALSE, error);
    case F_AMIN_ALL:   return cr_amin (x, NULL, 0, FALSE, error);
    case F_CUMSUM_1:   return cr_cumsum (x, 1, error);
    case F_CUMSUM_0:   return cr_cumsum (x, -2, error);
    case F_CUMPROD_1:  return cr_cumprod (x, 1, error);
    case F_CUMPROD_0:  return cr_cumprod (x, -2, error);
    case F_LOGCUMSUMEXP_1: return cr_logcumsumexp (x, 1, error);
    case F_NORM_1:     return cr_norm_dim (x, 2.0, &one, 1, FALSE, error);
    case F_NORM_3_KEEP: return cr_norm_dim (x, 3.0, &zero, 1, TRUE, error);
    case F_NORM_1_P1:  return cr_norm_dim (x, 1.0, &one, 1, FALSE, error);
    case F_LEAKY:      return cr_unary_p (CR_OP_LEAKY_RELU, x, &(CrUnaryParams) { { 0.2 } }, error);
    case F_ELU:        return cr_unary_p (CR_OP_ELU, x, &(CrUnaryParams) { { 0.5, 1, 1 } }, error);
    case F_SOFTPLUS:   return cr_unary_p (CR_OP_SOFTPLUS, x, &(CrUnaryParams) { { 2.0, 1.0 } }, error);
    case F_SILU:       return cr_silu (x, error);
    case F_GELU:       return cr_unary (CR_OP_GELU, x, error);
    case F_FLIP:       return cr_flip (x, (int[]) { 0, -1 }, 2, error);
    case F_TRIU:       return cr_triu (x, 1, error);
    case F_TRIL:       return cr_tril (x, -1, error);
    case F_TRACE:      return cr_trace (x, error);
    case F_REPEAT:     return cr_repeat (x, (gint64[]) { 2, 1, 3 }, 3, error);
    case F_GATHER:
      {
        /* Repeated positions: their gradients add up. */
        g_autoptr(CrTensor) index = cr_test_long_tensor ((gint64[]) { 0, 0, 2, 1, 1, 1 },
                                                         (gint64[]) { 2, 3 }, 2);
        return cr_gather (x, 1, index, error);
      }
    case F_INDEX_SELECT:
      {
        g_autoptr(CrTensor) index = cr_test_long_tensor ((gint64[]) { 2, 0, 2 },
                                                         (gint64[]) { 3 }, 1);
        return cr_index_select (x, -1, index, error);
      }
    case F_DIAG_2D:    return cr_diag (x, 1, error);
    case F_DIAG_1D:
      {
        g_autoptr(CrTensor) d = cr_diag (x, 0, error);
        return d != NULL ? cr_diag (d, -1, error) : NULL;
      }
    case F_T_:
    case F_UNSQUEEZE_SQUEEZE_:
    case F_SQUEEZE_DIM_:
      {
        /* y = x * 1 changed in place, as a script would write it. */
        g_autoptr(CrTensor) one_t = cr_tensor_new_scalar (1.0, CR_DTYPE_FLOAT64);
        g_autoptr(CrTensor) y = cr_mul (x, one_t, error);
        Which w = (Which) GPOINTER_TO_INT (user_data);
        gboolean ok;

        if (y == NULL)
          return NULL;
        if (w == F_T_)
          ok = cr_t_ (y, error);
        else if (w == F_UNSQUEEZE_SQUEEZE_)
          ok = cr_unsqueeze_ (y, 1, error) && cr_squeeze_ (y, FALSE, 0, error);
        else
          ok = cr_unsqueeze_ (y, -1, error) && cr_squeeze_ (y, TRUE, 2, error);
        return ok ? g_steal_pointer (&y) : NULL;
      }
    case F_SMOOTH_L1:
      {
        g_autoptr(CrTensor) target = cr_tensor_new_full (x->shape, x->ndim, 0.2,
                                                         CR_DTYPE_FLOAT64, CR_DEVICE_CPU, error);
        return cr_smooth_l1_loss (x, target, CR_REDUCTION_MEAN, 0.5, error);
      }
    case F_SPLIT:
    case F_UNBIND:
      {
        /* One piece times another: gradients reach two of the outputs. */
        g_autoptr(GPtrArray) pieces = GPOINTER_TO_INT (user_data) == F_SPLIT
                                      ? cr_split (x, 2, 1, error) : cr_unbind (x, 0, error);
        if (pieces == NULL)
          return NULL;
        return cr_mul (pieces->pdata[0], pieces->pdata[1], error);
      }
    case F_EXP_:
    case F_LOG_:
    case F_SIGMOID_:
      {
        /* y = x * 1 then in place, as a script would write it. */
        g_autoptr(CrTensor) one_t = cr_tensor_new_scalar (1.0, CR_DTYPE_FLOAT64);
        CrTensor *y = cr_mul (x, one_t, error);
        Which w = (Which) GPOINTER_TO_INT (user_data);
        CrOpId op = w == F_EXP_ ? CR_OP_EXP : w == F_LOG_ ? CR_OP_LOG : CR_OP_SIGMOID;

        if (y != NULL && !cr_inplace_unary (op, y, error))
          g_clear_pointer (&y, cr_tensor_unref);
        return y;
      }
    default:
      g_assert_not_reached ();
    }
}

static void
test_values (void)
{
  g_autoptr(CrTensor) z = make_z (TRUE);
  g_autoptr(GError) error = NULL;
  struct { Which w; const char *name; double values[9]; gint64 n; } cases[] = {
    /* torch (float64) */
    { F_VAR_ALL, "VarBackward0", { 1.7104166666666665 }, 1 },
    { F_STD_ALL, "StdBackward0", { 1.3078289898402873 }, 1 },
    { F_LSE_1, "LogsumexpBackward0", { 1.5045969023422834, 1.813780863337258 }, 2 },
    { F_AMAX_1, "AmaxBackward0", { 1.0, 1.5 }, 2 },
    { F_AMIN_ALL, "AminBackward0", { -2.0 }, 1 },
    { F_NORM_1, "NormBackward1", { 2.29128784747792, 1.8200274723201295 }, 2 },
    { F_LEAKY, "LeakyReluBackward0", { 1.0, -0.4, 0.5, 0.25, 1.5, -0.2 }, 6 },
    { F_SILU, "SiluBackward0", { 0.7310585786300049, -0.2384058440442351,
                                 0.3112296656009273, 0.14054412522144952,
                                 1.2263617142904655, -0.2689414213699951 }, 6 },
    { F_GELU, "GeluBackward0", { 0.841344746068543, -0.04550026389635842,
                                 0.34573123063700656, 0.14967658142073093,
                                 1.399789198096713, -0.15865525393145702 }, 6 },
    { F_CUMSUM_1, "CumsumBackward0", { 1.0, -1.0, -0.5, 0.25, 1.75, 0.75 }, 6 },
    /* torch.gather(z, 1, tensor([[0, 0, 2], [1, 1, 1]])) */
    { F_GATHER, "GatherBackward0", { 1.0, 1.0, 0.5, 1.5, 1.5, 1.5 }, 6 },
    /* z.index_select(-1, tensor([2, 0, 2])) */
    { F_INDEX_SELECT, "IndexSelectBackward0", { 0.5, 1.0, 0.5, -1.0, 0.25, -1.0 }, 6 },
    /* z.diag(1), z.diag().diag(-1) */
    { F_DIAG_2D, "DiagBackward0", { -2.0, -1.0 }, 2 },
    { F_DIAG_1D, "DiagBackward0", { 0, 0, 0, 1.0, 0, 0, 0, 1.5, 0 }, 9 },
    /* (z * 1).t_(), .unsqueeze_(1).squeeze_(), .unsqueeze_(-1).squeeze_(2) */
    { F_T_, "TBackward1", { 1.0, 0.25, -2.0, 1.5, 0.5, -1.0 }, 6 },
    { F_UNSQUEEZE_SQUEEZE_, "SqueezeBackward2", { 1.0, -2.0, 0.5, 0.25, 1.5, -1.0 }, 6 },
    { F_SQUEEZE_DIM_, "SqueezeBackward3", { 1.0, -2.0, 0.5, 0.25, 1.5, -1.0 }, 6 },
    { F_EXP_, "ExpBackward0", { 2.718281828459045, 0.1353352832366127, 1.6487212707001282,
                                1.2840254166877414, 4.4816890703380645, 0.36787944117144233 }, 6 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CrTensor) out = apply (&z, 1, GINT_TO_POINTER (cases[i].w), &error);
      g_assert_no_error (error);
      cr_test_assert_values_eps (out, cases[i].values, cases[i].n, 1e-12);
      g_assert_cmpstr (cr_test_fn_name (out), ==, cases[i].name);
    }
  {
    int one = 1, zero = 0;
    g_autoptr(CrTensor) s = cr_std (z, &one, 1, 1, FALSE, &error);
    g_autoptr(CrTensor) v = cr_var (z, &zero, 1, 0, FALSE, &error);
    g_assert_no_error (error);
    cr_test_assert_values_eps (s, (double[]) { 1.6072751268321592, 1.25 }, 2, 1e-12);
    cr_test_assert_values_eps (v, (double[]) { 0.140625, 3.0625, 0.5625 }, 3, 1e-12);
  }
}

static void
test_errors (void)
{
  g_autoptr(CrTensor) ints = cr_test_long_tensor ((gint64[]) { 1, 2 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) z = make_z (TRUE);
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(GError) error = NULL;
  int three = 3;

  g_assert_null (cr_var (ints, NULL, 0, 1, FALSE, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "std and var only support floating point and complex dtypes");
  g_clear_error (&error);
  g_assert_null (cr_amax (z, &three, 1, FALSE, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                        "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
  g_clear_error (&error);
  g_assert_null (cr_gather (z, 1, ints, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Index tensor must have the same number of dimensions as input tensor");
  g_clear_error (&error);
  g_assert_null (cr_index_select (z, 0, ints, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index out of range in self");
  g_clear_error (&error);
  /* t_ and unsqueeze_ follow the in-place rules and check their dims. */
  g_assert_false (cr_t_ (z, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "a leaf Variable that requires grad is being used in an in-place "
                        "operation.");
  g_clear_error (&error);
  {
    g_autoptr(CrTensor) cube = cr_tensor_new_zeros ((gint64[]) { 2, 3, 4 }, 3, CR_DTYPE_FLOAT32,
                                                    CR_DEVICE_CPU, NULL);
    g_assert_false (cr_t_ (cube, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                          "t_() expects a tensor with <= 2 dimensions, but self is 3D");
    g_clear_error (&error);
    g_assert_false (cr_unsqueeze_ (cube, 4, &error));
    cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                          "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
    g_clear_error (&error);
  }
  g_assert_null (cr_diag (z, 4, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "numel: integer multiplication overflow");
  g_clear_error (&error);
  /* exp_ of an int64 tensor cannot hold the float result. */
  g_assert_false (cr_inplace_unary (CR_OP_EXP, ints, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "result type Float can't be cast to the desired output type Long");
  g_clear_error (&error);
  /* A leaf that requires grad cannot change in place. */
  g_assert_false (cr_inplace_unary (CR_OP_EXP, z, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "a leaf Variable that requires grad is being used in an in-place "
                        "operation.");
  g_clear_error (&error);
  /* Integer cumsum stays int64: tensor([1, 3]). */
  c = cr_cumsum (ints, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (c->dtype, ==, CR_DTYPE_INT64);
  cr_test_assert_values (c, (double[]) { 1, 3 }, 2);
}

static void
test_gradcheck (void)
{
  const Which all[] = { F_VAR_ALL, F_VAR_1, F_STD_ALL, F_STD_0_KEEP, F_LSE_1, F_LSE_ALL,
                        F_AMAX_1, F_AMIN_ALL, F_CUMSUM_1, F_CUMSUM_0, F_EXP_, F_SIGMOID_,
                        F_NORM_1, F_NORM_3_KEEP, F_NORM_1_P1, F_LEAKY, F_ELU, F_SOFTPLUS,
                        F_SILU, F_SPLIT, F_UNBIND, F_FLIP, F_TRIU, F_TRIL, F_TRACE,
                        F_SMOOTH_L1, F_REPEAT, F_GATHER, F_INDEX_SELECT, F_DIAG_2D,
                        F_DIAG_1D, F_T_, F_UNSQUEEZE_SQUEEZE_, F_SQUEEZE_DIM_,
                        F_CUMPROD_1, F_CUMPROD_0, F_LOGCUMSUMEXP_1 };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, -1.0, 1.0, 7 + i);
      g_autoptr(CrTensor) xt = cr_gradcheck_rand_transposed ((gint64[]) { 3, 4 }, 2, -1.0, 1.0,
                                                             31 + i);

      g_test_message ("case %u", i);
      g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (all[i]), &x, 1));
      g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (all[i]), &xt, 1));
      g_assert_true (cr_gradgradcheck (apply, GINT_TO_POINTER (all[i]), &x, 1));
    }
  {
    /* gelu's second derivative takes its CDF term as a constant: first
     * derivatives only. */
    g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 3 }, 2, -2.0, 2.0, 5);
    g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (F_GELU), &x, 1));
  }
  {
    /* log_ needs positive inputs. */
    g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 3 }, 2, 0.5, 2.0, 3);
    g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (F_LOG_), &x, 1));
    g_assert_true (cr_gradgradcheck (apply, GINT_TO_POINTER (F_LOG_), &x, 1));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ops-extra/values", test_values);
  g_test_add_func ("/core/ops-extra/errors", test_errors);
  g_test_add_func ("/core/ops-extra/gradcheck", test_gradcheck);
  return g_test_run ();
}
