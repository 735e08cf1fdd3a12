/* test-ops-real-code.c — the ops tutorial code needed that the engine
 * lacked: clamp with tensor bounds (cr-ops-clamp-tensor.c), cummax/cummin
 * (cr-ops-cummax.c), _pack_padded_sequence (cr-ops-packed-sequence.c),
 * the in-place forms addmm_, cumsum_, cumprod_ (cr-ops-inplace-forms.c),
 * lerp (cr-ops-lerp.c), nan_to_num (cr-ops-nan-to-num.c), unfold and
 * as_strided (cr-ops-strided-views.c), prelu (cr-ops-prelu.c), var with a
 * correction (cr-ops-stats.c), xlogy of a number (cr-ops-xlogy-number.c),
 * index_put with accumulate (cr-ops-index.c), median, kthvalue and mode
 * (cr-ops-sort.c), glu (cr-ops-glu.c), linalg inv, det and solve
 * (cr-ops-linalg-solve.c), unfold and fold (cr-ops-im2col.c):
 * first and second finite-difference checks, grad_fn names, and the
 * values PyTorch 1.13 gives for the cases below. */
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-error.h"
#include "gradcheck.h"
#include "test-util.h"

#include <math.h>

typedef enum {
  F_CLAMP_BOTH, F_CLAMP_MIN, F_CLAMP_MAX, F_CLAMP_MIN_T, F_CLAMP_MAX_T, F_CLAMP_INPLACE,
  F_CUMMAX_1, F_CUMMIN_0, F_PACK, F_PACK_BATCH_FIRST, F_ADDMM_, F_CUMSUM_, F_CUMPROD_,
  F_LERP_NUMBER, F_LERP_NUMBER_HIGH, F_LERP_TENSOR, F_LERP_INPLACE, F_NAN_TO_NUM,
  F_UNFOLD_OVERLAP, F_UNFOLD_TWICE, F_AS_STRIDED, F_PRELU,
  F_VAR_CORRECTION, F_XLOGY_NUMBER, F_INDEX_PUT_ACC, F_MEDIAN_ALL, F_MEDIAN_DIM, F_KTHVALUE,
  F_MODE, F_GLU, F_INV, F_DET, F_SOLVE_VECTOR, F_SOLVE_MATRIX, F_IM2COL, F_COL2IM,
} Which;

/* a + 3 I: a random matrix kept far from singular. */
static CrTensor *
well_conditioned (CrTensor  *a,
                  GError   **error)
{
  g_autoptr(CrTensor) eye = cr_tensor_new_eye (a->shape[0], a->shape[1], a->dtype, error);
  g_autoptr(CrTensor) three = cr_tensor_new_scalar (3.0, CR_DTYPE_FLOAT64);
  g_autoptr(CrTensor) shift = eye != NULL ? cr_mul (eye, three, error) : NULL;

  return shift != NULL ? cr_add (a, shift, error) : NULL;
}

/* y = x * 1, so that an in-place op has a non-leaf to write into. */
static CrTensor *
times_one (CrTensor  *x,
           GError   **error)
{
  g_autoptr(CrTensor) one = cr_tensor_new_scalar (1.0, CR_DTYPE_FLOAT64);

  return cr_mul (x, one, error);
}

static CrTensor *
apply (CrTensor *const *in,
       guint            n_inputs,
       gpointer         user_data,
       GError         **error)
{
  switch ((Which) GPOINTER_TO_INT (user_data))
    {
    case F_CLAMP_BOTH:  return cr_clamp_tensor (CR_OP_CLAMP_TENSOR, in[0], in[1], in[2], error);
    case F_CLAMP_MIN:   return cr_clamp_tensor (CR_OP_CLAMP_TENSOR, in[0], in[1], NULL, error);
    case F_CLAMP_MAX:   return cr_clamp_tensor (CR_OP_CLAMP_TENSOR, in[0], NULL, in[1], error);
    case F_CLAMP_MIN_T: return cr_clamp_tensor (CR_OP_CLAMP_MIN_TENSOR, in[0], in[1], NULL, error);
    case F_CLAMP_MAX_T: return cr_clamp_tensor (CR_OP_CLAMP_MAX_TENSOR, in[0], NULL, in[1], error);
    case F_CLAMP_INPLACE:
      {
        g_autoptr(CrTensor) y = times_one (in[0], error);

        if (y == NULL || !cr_clamp_tensor_ (CR_OP_CLAMP_TENSOR, y, in[1], in[2], error))
          return NULL;
        return g_steal_pointer (&y);
      }
    case F_CUMMAX_1:
    case F_CUMMIN_0:
      {
        gboolean is_min = GPOINTER_TO_INT (user_data) == F_CUMMIN_0;
        g_autoptr(CrTensor) indices = NULL;

        return cr_cummaxmin (in[0], is_min ? 0 : 1, is_min, &indices, error);
      }
    case F_PACK:
    case F_PACK_BATCH_FIRST:
      {
        g_autoptr(CrTensor) lengths = cr_test_long_tensor ((gint64[]) { 4, 2, 1 },
                                                           (gint64[]) { 3 }, 1);
        g_autoptr(CrTensor) batch_sizes = NULL;

        return cr_pack_padded_sequence (in[0], lengths,
                                        GPOINTER_TO_INT (user_data) == F_PACK_BATCH_FIRST,
                                        &batch_sizes, error);
      }
    case F_ADDMM_:
      {
        g_autoptr(CrTensor) y = times_one (in[0], error);

        if (y == NULL || !cr_scaled_product_ (CR_OP_ADDMM, cr_addmm_scaled, y, in[1], in[2], 0.5,
                                              2.0, error))
          return NULL;
        return g_steal_pointer (&y);
      }
    case F_LERP_NUMBER:      return cr_lerp (in[0], in[1], NULL, 0.3, error);
    case F_LERP_NUMBER_HIGH: return cr_lerp (in[0], in[1], NULL, 0.8, error);
    case F_LERP_TENSOR:      return cr_lerp (in[0], in[1], in[2], 0.0, error);
    case F_LERP_INPLACE:
      {
        g_autoptr(CrTensor) y = times_one (in[0], error);

        if (y == NULL || !cr_lerp_ (y, in[1], in[2], 0.0, error))
          return NULL;
        return g_steal_pointer (&y);
      }
    case F_NAN_TO_NUM:
      {
        const CrNanToNum with = { 0.5, FALSE, FALSE, 0.0, 0.0 };

        return cr_nan_to_num (in[0], &with, error);
      }
    case F_UNFOLD_OVERLAP:   return cr_unfold (in[0], 1, 3, 1, error);
    case F_UNFOLD_TWICE:
      {
        g_autoptr(CrTensor) rows = cr_unfold (in[0], 0, 2, 1, error);

        return rows != NULL ? cr_unfold (rows, 1, 2, 2, error) : NULL;
      }
    case F_AS_STRIDED:
      return cr_as_strided (in[0], (gint64[]) { 3, 3 }, 2, (gint64[]) { 1, 2 }, TRUE, 1, error);
    case F_PRELU:            return cr_prelu (in[0], in[1], error);
    case F_VAR_CORRECTION:   return cr_var (in[0], (int[]) { 1 }, 1, 2, FALSE, error);
    case F_XLOGY_NUMBER:
      {
        g_autoptr(CrTensor) squared = cr_mul (in[0], in[0], error);

        return squared != NULL ? cr_xlogy_number_self (2.5, FALSE, squared, error) : NULL;
      }
    case F_INDEX_PUT_ACC:
      {
        g_autoptr(CrTensor) rows = cr_test_long_tensor ((gint64[]) { 0, 2, 0 },
                                                        (gint64[]) { 3 }, 1);
        CrIndexItem at = { .kind = CR_INDEX_TENSOR, .tensor = rows };

        return cr_index_put (in[0], &at, 1, in[1], TRUE, error);
      }
    case F_MEDIAN_ALL:       return cr_median_all (in[0], error);
    case F_MEDIAN_DIM:
    case F_KTHVALUE:
    case F_MODE:
      {
        Which which = GPOINTER_TO_INT (user_data);
        g_autoptr(CrTensor) indices = NULL;

        return which == F_MEDIAN_DIM ? cr_median_dim (in[0], 1, FALSE, &indices, error)
               : which == F_KTHVALUE ? cr_kthvalue (in[0], 3, 0, TRUE, &indices, error)
               : cr_mode (in[0], 1, FALSE, &indices, error);
      }
    case F_GLU:              return cr_glu (in[0], 1, error);
    /* kernel 2×2, dilation 1×2, padding 1×0, stride 2×1 */
    case F_IM2COL:           return cr_im2col (in[0], (gint64[]) { 2, 2, 1, 2, 1, 0, 2, 1 }, error);
    case F_COL2IM:           return cr_col2im (in[0], 3, 4, (gint64[]) { 2, 2, 1, 2, 1, 0, 2, 1 },
                                               error);
    case F_INV:
    case F_DET:
      {
        g_autoptr(CrTensor) a = well_conditioned (in[0], error);

        if (a == NULL)
          return NULL;
        return GPOINTER_TO_INT (user_data) == F_INV ? cr_linalg_inv (a, error)
                                                    : cr_linalg_det (a, error);
      }
    case F_SOLVE_VECTOR:
    case F_SOLVE_MATRIX:
      {
        g_autoptr(CrTensor) a = well_conditioned (in[0], error);

        return a != NULL ? cr_linalg_solve (a, in[1], error) : NULL;
      }
    case F_CUMSUM_:
    case F_CUMPROD_:
      {
        g_autoptr(CrTensor) y = times_one (in[0], error);

        if (y == NULL || !cr_cumulative_ (y, 1, GPOINTER_TO_INT (user_data) == F_CUMPROD_, error))
          return NULL;
        return g_steal_pointer (&y);
      }
    }
  g_assert_not_reached ();
}

typedef struct {
  Which        which;
  const char  *grad_fn;
  guint        n_inputs;
  gint64       shapes[3][3];   /* each input's shape, ndim = the count of non-zero sizes */
} Case;

static const Case cases[] = {
  { F_CLAMP_BOTH, "ClampBackward0", 3, { { 3, 4 }, { 4 }, { 3, 1 } } },
  { F_CLAMP_MIN, "ClampBackward0", 2, { { 3, 4 }, { 3, 4 } } },
  { F_CLAMP_MAX, "ClampBackward0", 2, { { 3, 4 }, { 1, 4 } } },
  { F_CLAMP_MIN_T, "ClampMinBackward1", 2, { { 3, 4 }, { 4 } } },
  { F_CLAMP_MAX_T, "ClampMaxBackward1", 2, { { 3, 4 }, { 3, 4 } } },
  { F_CLAMP_INPLACE, "ClampBackward0", 3, { { 3, 4 }, { 4 }, { 4 } } },
  { F_CUMMAX_1, "CummaxBackward0", 1, { { 3, 4 } } },
  { F_CUMMIN_0, "CumminBackward0", 1, { { 3, 4 } } },
  { F_PACK, "PackPaddedSequenceBackward0", 1, { { 4, 3, 2 } } },
  { F_PACK_BATCH_FIRST, "PackPaddedSequenceBackward0", 1, { { 3, 4, 2 } } },
  { F_ADDMM_, "AddmmBackward0", 3, { { 2, 3 }, { 2, 4 }, { 4, 3 } } },
  { F_CUMSUM_, "CumsumBackward0", 1, { { 3, 4 } } },
  { F_CUMPROD_, "CumprodBackward0", 1, { { 3, 4 } } },
  { F_LERP_NUMBER, "LerpBackward0", 2, { { 3, 4 }, { 4 } } },
  { F_LERP_NUMBER_HIGH, "LerpBackward0", 2, { { 3, 4 }, { 3, 4 } } },
  { F_LERP_TENSOR, "LerpBackward1", 3, { { 3, 4 }, { 3, 4 }, { 4 } } },
  { F_LERP_INPLACE, "LerpBackward1", 3, { { 3, 4 }, { 3, 4 }, { 3, 4 } } },
  { F_NAN_TO_NUM, "NanToNumBackward0", 1, { { 3, 4 } } },
  { F_UNFOLD_OVERLAP, "UnfoldBackward0", 1, { { 3, 4 } } },
  { F_UNFOLD_TWICE, "UnfoldBackward0", 1, { { 3, 4 } } },
  { F_AS_STRIDED, "AsStridedBackward0", 1, { { 3, 4 } } },
  { F_PRELU, "PreluBackward0", 2, { { 2, 3, 2 }, { 3 } } },
  { F_PRELU, "PreluBackward0", 2, { { 3, 4 }, { 1 } } },
  { F_VAR_CORRECTION, "VarBackward0", 1, { { 3, 4 } } },
  { F_XLOGY_NUMBER, "XlogyBackward1", 1, { { 3, 4 } } },
  { F_INDEX_PUT_ACC, "IndexPutBackward0", 2, { { 3, 4 }, { 3, 4 } } },
  { F_MEDIAN_ALL, "MedianBackward0", 1, { { 3, 4 } } },
  { F_MEDIAN_DIM, "MedianBackward1", 1, { { 3, 4 } } },
  { F_KTHVALUE, "KthvalueBackward0", 1, { { 4, 3 } } },
  { F_MODE, "ModeBackward0", 1, { { 3, 4 } } },
  { F_GLU, "GluBackward0", 1, { { 3, 4 } } },
  { F_INV, "LinalgInvExBackward0", 1, { { 3, 3 } } },
  { F_DET, "LinalgDetBackward0", 1, { { 3, 3 } } },
  { F_SOLVE_VECTOR, "LinalgSolveExBackward0", 2, { { 3, 3 }, { 3 } } },
  { F_SOLVE_MATRIX, "LinalgSolveExBackward0", 2, { { 3, 3 }, { 3, 2 } } },
  { F_IM2COL, "Im2ColBackward0", 1, { { 2, 3, 4 } } },
  { F_COL2IM, "Col2ImBackward0", 1, { { 8, 4 } } },
};

static void
test_gradcheck (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      CrTensor *inputs[3] = { NULL, NULL, NULL };
      g_autoptr(GError) error = NULL;
      g_autoptr(CrTensor) out = NULL;

      g_test_message ("case %u", c);
      for (guint i = 0; i < cases[c].n_inputs; i++)
        {
          int ndim = 0;

          while (ndim < 3 && cases[c].shapes[i][ndim] != 0)
            ndim++;
          /* Bounds around the middle of x's range, so that every branch
           * of the masks is taken (min above max too). */
          inputs[i] = cr_gradcheck_rand (cases[c].shapes[i], ndim, i == 0 ? -1.0 : -0.5,
                                         i == 0 ? 1.0 : 0.5, 11 + 7 * c + i);
        }
      out = apply (inputs, cases[c].n_inputs, GINT_TO_POINTER (cases[c].which), &error);
      g_assert_no_error (error);
      g_assert_cmpstr (cr_node_name (out->grad_fn), ==, cases[c].grad_fn);
      g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (cases[c].which), inputs,
                                   cases[c].n_inputs));
      g_assert_true (cr_gradgradcheck (apply, GINT_TO_POINTER (cases[c].which), inputs,
                                       cases[c].n_inputs));
      for (guint i = 0; i < cases[c].n_inputs; i++)
        cr_tensor_unref (inputs[i]);
    }
}

/* Values PyTorch 1.13 gives (real-cummax.py, real-packed-rnn.py). */
static void
test_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) x = cr_gradcheck_tensor ((double[]) { 1, NAN, 3, NAN, 0 },
                                               (gint64[]) { 5 }, 1, FALSE);
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) values = cr_cummaxmin (x, 0, FALSE, &indices, &error);
  const gint64 expected_indices[] = { 0, 1, 1, 3, 3 };
  g_autoptr(CrTensor) padded = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                                    (gint64[]) { 3, 2 }, 2, FALSE);
  g_autoptr(CrTensor) lengths = cr_test_long_tensor ((gint64[]) { 3, 1 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) unsorted = cr_test_long_tensor ((gint64[]) { 1, 3 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) batch_sizes = NULL;
  g_autoptr(CrTensor) data = NULL;

  g_assert_no_error (error);
  g_assert_cmpfloat (cr_tensor_get_flat (values, 0), ==, 1.0);
  for (int i = 1; i < 5; i++)
    g_assert_true (isnan (cr_tensor_get_flat (values, i)));
  for (int i = 0; i < 5; i++)
    g_assert_cmpint (cr_tensor_get_flat_int (indices, i), ==, expected_indices[i]);

  /* Time first: step 0 has both sequences, steps 1 and 2 the first only. */
  data = cr_pack_padded_sequence (padded, lengths, FALSE, &batch_sizes, &error);
  g_assert_no_error (error);
  g_assert_cmpint (data->numel, ==, 4);
  g_assert_cmpfloat (cr_tensor_get_flat (data, 0), ==, 1.0);
  g_assert_cmpfloat (cr_tensor_get_flat (data, 1), ==, 2.0);
  g_assert_cmpfloat (cr_tensor_get_flat (data, 2), ==, 3.0);
  g_assert_cmpfloat (cr_tensor_get_flat (data, 3), ==, 5.0);
  g_assert_cmpint (cr_tensor_get_flat_int (batch_sizes, 0), ==, 2);
  g_assert_cmpint (cr_tensor_get_flat_int (batch_sizes, 2), ==, 1);
  g_clear_pointer (&batch_sizes, cr_tensor_unref);
  g_assert_null (cr_pack_padded_sequence (padded, unsorted, FALSE, &batch_sizes, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_true (g_str_has_prefix (error->message, "`lengths` array must be sorted"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ops-real-code/gradcheck", test_gradcheck);
  g_test_add_func ("/core/ops-real-code/values", test_values);
  return g_test_run ();
}
