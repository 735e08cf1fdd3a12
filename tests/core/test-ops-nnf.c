/* test-ops-nnf.c — layer_norm, batch_norm, group_norm, instance_norm,
 * embedding, einsum, diagonal, pad, normalize, cosine_similarity,
 * pairwise_distance, bilinear, clamp_min, cdist, index_copy, unflatten and
 * roll: first and second finite-difference checks
 * (float64) of every input, values against PyTorch 1.13, grad_fn names, and
 * the running statistics of batch norm. */
#include "cr-ops-nnf.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "gradcheck.h"
#include "test-util.h"

#include <math.h>

typedef enum {
  F_LAYER_NORM, F_LAYER_NORM_2, F_LAYER_NORM_PLAIN, F_BATCH_NORM_TRAIN, F_BATCH_NORM_EVAL,
  F_BATCH_NORM_4D, F_GROUP_NORM, F_INSTANCE_NORM, F_EMBEDDING, F_EMBEDDING_PAD, F_EMBEDDING_FREQ,
  F_EINSUM_MM, F_EINSUM_TRACE, F_EINSUM_OUTER, F_EINSUM_BATCH, F_EINSUM_THREE, F_DIAGONAL,
  F_PAD_CONSTANT, F_PAD_CUT, F_PAD_REFLECT, F_PAD_REPLICATE_2D, F_NORMALIZE, F_COSINE,
  F_PAIRWISE, F_BILINEAR, F_CLAMP_MIN, F_INDEX_COPY, F_INDEX_COPY_, F_UNFLATTEN,
  F_CDIST_2, F_CDIST_1, F_CDIST_3, F_CDIST_INF, F_ROLL, F_ROLL_FLAT,
} Which;

static CrTensor *
apply (CrTensor *const *in,
       guint            n_inputs,
       gpointer         user_data,
       GError         **error)
{
  switch ((Which) GPOINTER_TO_INT (user_data))
    {
    case F_LAYER_NORM:
      return cr_layer_norm (in[0], (gint64[]) { 3 }, 1, in[1], in[2], 1e-5, error);
    case F_LAYER_NORM_2:
      return cr_layer_norm (in[0], (gint64[]) { 2, 3 }, 2, in[1], NULL, 1e-3, error);
    case F_LAYER_NORM_PLAIN:
      return cr_layer_norm (in[0], (gint64[]) { 3 }, 1, NULL, NULL, 1e-5, error);
    case F_BATCH_NORM_TRAIN:
      return cr_batch_norm (in[0], NULL, NULL, in[1], in[2], TRUE, 0.1, 1e-5, error);
    case F_BATCH_NORM_EVAL:
      {
        g_autoptr(CrTensor) rm = cr_gradcheck_tensor ((double[]) { 0.5, -1.0, 0.25 },
                                                      (gint64[]) { 3 }, 1, FALSE);
        g_autoptr(CrTensor) rv = cr_gradcheck_tensor ((double[]) { 2.0, 0.5, 1.5 },
                                                      (gint64[]) { 3 }, 1, FALSE);
        return cr_batch_norm (in[0], rm, rv, in[1], in[2], FALSE, 0.1, 1e-5, error);
      }
    case F_BATCH_NORM_4D:
      return cr_batch_norm (in[0], NULL, NULL, in[1], NULL, TRUE, 0.1, 1e-5, error);
    case F_GROUP_NORM:
      return cr_group_norm (in[0], 2, in[1], in[2], 1e-5, error);
    case F_INSTANCE_NORM:
      return cr_instance_norm (in[0], NULL, NULL, in[1], NULL, TRUE, 0.1, 1e-5, error);
    case F_EMBEDDING:
    case F_EMBEDDING_PAD:
    case F_EMBEDDING_FREQ:
      {
        g_autoptr(CrTensor) idx = cr_test_long_tensor ((gint64[]) { 2, 0, 2, 3 },
                                                       (gint64[]) { 2, 2 }, 2);
        return cr_embedding (in[0], idx, GPOINTER_TO_INT (user_data) == F_EMBEDDING_PAD, 2,
                             GPOINTER_TO_INT (user_data) == F_EMBEDDING_FREQ, FALSE, 0.0, 2.0,
                             error);
      }
    case F_EINSUM_MM:    return cr_einsum ("ij,jk->ik", in, 2, error);
    case F_EINSUM_TRACE: return cr_einsum ("ii", in, 1, error);
    case F_EINSUM_OUTER: return cr_einsum ("i,j", in, 2, error);
    case F_EINSUM_BATCH: return cr_einsum ("...ij,...kj->...ik", in, 2, error);
    case F_EINSUM_THREE: return cr_einsum ("ij,jk,k->i", in, 3, error);
    case F_DIAGONAL:     return cr_diagonal (in[0], 1, 0, 2, error);
    case F_PAD_CONSTANT: return cr_pad (in[0], (gint64[]) { 1, 2, 0, 1 }, 4, "constant", TRUE,
                                        0.5, error);
    case F_PAD_CUT:      return cr_pad (in[0], (gint64[]) { -1, 2 }, 2, "constant", FALSE, 0.0,
                                        error);
    case F_PAD_REFLECT:  return cr_pad (in[0], (gint64[]) { 2, 1 }, 2, "reflect", FALSE, 0.0,
                                        error);
    case F_PAD_REPLICATE_2D:
      return cr_pad (in[0], (gint64[]) { 1, 2, 2, 0 }, 4, "replicate", FALSE, 0.0, error);
    case F_NORMALIZE:    return cr_normalize (in[0], 2.0, 1, 1e-12, error);
    case F_COSINE:       return cr_cosine_similarity (in[0], in[1], 1, 1e-8, error);
    case F_PAIRWISE:     return cr_pairwise_distance (in[0], in[1], 2.0, 1e-6, FALSE, error);
    case F_BILINEAR:     return cr_bilinear (in[0], in[1], in[2], in[3], error);
    case F_CLAMP_MIN:    return cr_clamp_min (in[0], 0.1, error);
    case F_INDEX_COPY:
    case F_INDEX_COPY_:
      {
        g_autoptr(CrTensor) idx = cr_test_long_tensor ((gint64[]) { 3, 0 }, (gint64[]) { 2 }, 1);
        g_autoptr(CrTensor) c = NULL;

        if (GPOINTER_TO_INT (user_data) == F_INDEX_COPY)
          return cr_index_copy (in[0], 1, idx, in[1], error);
        /* In place on a clone, as a script would write it. */
        c = cr_clone (in[0], error);
        if (c == NULL || !cr_index_copy_ (c, -1, idx, in[1], error))
          return NULL;
        return g_steal_pointer (&c);
      }
    case F_UNFLATTEN:    return cr_unflatten (in[0], 1, (gint64[]) { 2, -1 }, 2, error);
    case F_CDIST_2:      return cr_cdist (in[0], in[1], 2.0, error);
    case F_CDIST_1:      return cr_cdist (in[0], in[1], 1.0, error);
    case F_CDIST_3:      return cr_cdist (in[0], in[1], 3.0, error);
    case F_CDIST_INF:    return cr_cdist (in[0], in[1], INFINITY, error);
    case F_ROLL:         return cr_roll (in[0], (gint64[]) { 1, -5 }, 2, (int[]) { 0, 2 }, 2,
                                         error);
    case F_ROLL_FLAT:    return cr_roll (in[0], (gint64[]) { 7 }, 1, NULL, 0, error);
    }
  g_assert_not_reached ();
}

static CrTensor *
rand_t (const gint64 *shape,
        int           ndim,
        guint32       seed)
{
  return cr_gradcheck_rand (shape, ndim, -1.0, 1.0, seed);
}

static void
check_both (Which             which,
            CrTensor *const  *inputs,
            guint             n)
{
  gpointer data = GINT_TO_POINTER (which);

  g_assert_true (cr_gradcheck (apply, data, inputs, n));
  g_assert_true (cr_gradgradcheck (apply, data, inputs, n));
}

static void
test_layer_norm_grads (void)
{
  g_autoptr(CrTensor) x = rand_t ((gint64[]) { 2, 2, 3 }, 3, 1);
  g_autoptr(CrTensor) w = rand_t ((gint64[]) { 3 }, 1, 2);
  g_autoptr(CrTensor) b = rand_t ((gint64[]) { 3 }, 1, 3);
  g_autoptr(CrTensor) w2 = rand_t ((gint64[]) { 2, 3 }, 2, 4);
  CrTensor *in[3] = { x, w, b };
  CrTensor *in2[2] = { x, w2 };

  check_both (F_LAYER_NORM, in, 3);
  check_both (F_LAYER_NORM_2, in2, 2);
  check_both (F_LAYER_NORM_PLAIN, in, 1);
}

static void
test_batch_norm_grads (void)
{
  g_autoptr(CrTensor) x = rand_t ((gint64[]) { 4, 3 }, 2, 5);
  g_autoptr(CrTensor) x3 = rand_t ((gint64[]) { 2, 3, 2 }, 3, 6);
  g_autoptr(CrTensor) x4 = rand_t ((gint64[]) { 2, 3, 2, 2 }, 4, 7);
  g_autoptr(CrTensor) w = rand_t ((gint64[]) { 3 }, 1, 8);
  g_autoptr(CrTensor) b = rand_t ((gint64[]) { 3 }, 1, 9);
  CrTensor *in[3] = { x, w, b };
  CrTensor *in3[3] = { x3, w, b };
  CrTensor *in4[2] = { x4, w };

  check_both (F_BATCH_NORM_TRAIN, in, 3);
  check_both (F_BATCH_NORM_TRAIN, in3, 3);
  check_both (F_BATCH_NORM_EVAL, in3, 3);
  check_both (F_BATCH_NORM_4D, in4, 2);
}

static void
test_group_instance_norm_grads (void)
{
  g_autoptr(CrTensor) x = rand_t ((gint64[]) { 2, 4, 3 }, 3, 10);
  g_autoptr(CrTensor) w = rand_t ((gint64[]) { 4 }, 1, 11);
  g_autoptr(CrTensor) b = rand_t ((gint64[]) { 4 }, 1, 12);
  CrTensor *in[3] = { x, w, b };

  check_both (F_GROUP_NORM, in, 3);
  check_both (F_INSTANCE_NORM, in, 2);
}

static void
test_embedding_grads (void)
{
  g_autoptr(CrTensor) w = rand_t ((gint64[]) { 4, 3 }, 2, 13);
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) out = NULL;

  check_both (F_EMBEDDING, &w, 1);
  /* padding_idx's rows get no gradient on purpose, so no finite differences:
   * its gradient of a sum counts the other rows' reads. */
  {
    g_autoptr(CrTensor) padded = apply (&w, 1, GINT_TO_POINTER (F_EMBEDDING_PAD), &error);
    g_autoptr(CrTensor) total = padded != NULL ? cr_sum (padded, &error) : NULL;

    g_assert_no_error (error);
    cr_test_backward (total);
    cr_test_assert_values_eps (w->grad, (double[]) { 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1 }, 12,
                               1e-12);
  }
  /* scale_grad_by_freq: row 2, read twice, gets half of each read's gradient. */
  g_clear_pointer (&w->grad, cr_tensor_unref);
  {
    g_autoptr(CrTensor) scaled = apply (&w, 1, GINT_TO_POINTER (F_EMBEDDING_FREQ), &error);
    g_autoptr(CrTensor) total = scaled != NULL ? cr_sum (scaled, &error) : NULL;

    g_assert_no_error (error);
    cr_test_backward (total);
    cr_test_assert_values_eps (w->grad, (double[]) { 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1 }, 12,
                               1e-12);
  }

  out = apply (&w, 1, GINT_TO_POINTER (F_EMBEDDING), &error);
  g_assert_no_error (error);
  cr_test_assert_shape (out, (gint64[]) { 2, 2, 3 }, 3);
  g_assert_cmpstr (cr_test_fn_name (out), ==, "EmbeddingBackward0");
}

static void
test_einsum_grads (void)
{
  g_autoptr(CrTensor) a = rand_t ((gint64[]) { 2, 3 }, 2, 14);
  g_autoptr(CrTensor) b = rand_t ((gint64[]) { 3, 4 }, 2, 15);
  g_autoptr(CrTensor) m = rand_t ((gint64[]) { 3, 3 }, 2, 16);
  g_autoptr(CrTensor) u = rand_t ((gint64[]) { 2 }, 1, 17);
  g_autoptr(CrTensor) v = rand_t ((gint64[]) { 4 }, 1, 18);
  g_autoptr(CrTensor) bx = rand_t ((gint64[]) { 2, 2, 3 }, 3, 19);
  g_autoptr(CrTensor) by = rand_t ((gint64[]) { 4, 3 }, 2, 20);
  g_autoptr(CrTensor) t3 = rand_t ((gint64[]) { 2, 3, 4 }, 3, 21);
  CrTensor *mm[2] = { a, b };
  CrTensor *outer[2] = { u, v };
  CrTensor *batch[2] = { bx, by };
  CrTensor *three[3] = { a, b, v };

  check_both (F_EINSUM_MM, mm, 2);
  check_both (F_EINSUM_TRACE, &m, 1);
  check_both (F_EINSUM_OUTER, outer, 2);
  check_both (F_EINSUM_BATCH, batch, 2);
  check_both (F_EINSUM_THREE, three, 3);
  check_both (F_DIAGONAL, &t3, 1);
}

static void
test_pad_distance_grads (void)
{
  g_autoptr(CrTensor) x = rand_t ((gint64[]) { 2, 2, 4 }, 3, 30);
  g_autoptr(CrTensor) y = rand_t ((gint64[]) { 2, 2, 4 }, 3, 31);
  g_autoptr(CrTensor) img = rand_t ((gint64[]) { 1, 2, 3, 3 }, 4, 32);
  g_autoptr(CrTensor) m1 = rand_t ((gint64[]) { 3, 4 }, 2, 33);
  g_autoptr(CrTensor) m2 = rand_t ((gint64[]) { 3, 4 }, 2, 34);
  g_autoptr(CrTensor) i1 = rand_t ((gint64[]) { 2, 3, 2 }, 3, 35);
  g_autoptr(CrTensor) i2 = rand_t ((gint64[]) { 2, 3, 3 }, 3, 36);
  g_autoptr(CrTensor) w = rand_t ((gint64[]) { 4, 2, 3 }, 3, 37);
  g_autoptr(CrTensor) b = rand_t ((gint64[]) { 4 }, 1, 38);
  CrTensor *pair[2] = { m1, m2 };
  CrTensor *pair3[2] = { x, y };
  CrTensor *bil[4] = { i1, i2, w, b };

  check_both (F_PAD_CONSTANT, &x, 1);
  check_both (F_PAD_CUT, &x, 1);
  check_both (F_PAD_REFLECT, &x, 1);
  check_both (F_PAD_REPLICATE_2D, &img, 1);
  check_both (F_NORMALIZE, &m1, 1);
  check_both (F_COSINE, pair, 2);
  check_both (F_PAIRWISE, pair3, 2);
  check_both (F_BILINEAR, bil, 4);
  check_both (F_CLAMP_MIN, &m1, 1);
}

static void
test_index_copy_unflatten_grads (void)
{
  g_autoptr(CrTensor) self = rand_t ((gint64[]) { 3, 4 }, 2, 40);
  g_autoptr(CrTensor) source = rand_t ((gint64[]) { 3, 2 }, 2, 41);
  CrTensor *in[2] = { self, source };

  check_both (F_INDEX_COPY, in, 2);
  check_both (F_INDEX_COPY_, in, 2);
  check_both (F_UNFLATTEN, &self, 1);
}

static void
test_roll_grads (void)
{
  g_autoptr(CrTensor) x = rand_t ((gint64[]) { 2, 2, 3 }, 3, 60);

  check_both (F_ROLL, &x, 1);
  check_both (F_ROLL_FLAT, &x, 1);
}

static void
test_cdist_grads (void)
{
  g_autoptr(CrTensor) x1 = rand_t ((gint64[]) { 2, 3, 4 }, 3, 50);
  g_autoptr(CrTensor) x2 = rand_t ((gint64[]) { 1, 2, 4 }, 3, 51);
  CrTensor *in[2] = { x1, x2 };

  check_both (F_CDIST_2, in, 2);
  check_both (F_CDIST_3, in, 2);
  /* p = 1 and inf: first derivatives (the second are 0 almost everywhere) */
  g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (F_CDIST_1), in, 2));
  g_assert_true (cr_gradcheck (apply, GINT_TO_POINTER (F_CDIST_INF), in, 2));
}

/* F.batch_norm(x, rm, rv, training=True, momentum=0.2) of the nnf_batch_norm
 * case's first rows, float64: PyTorch 1.13's running statistics. */
static void
test_batch_norm_running_stats (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_tensor ((double[]) { 1.0, 2.0, 3.0, 5.0, -1.0, 0.5 },
                                               (gint64[]) { 3, 2 }, 2, FALSE);
  g_autoptr(CrTensor) rm = cr_gradcheck_tensor ((double[]) { 0.0, 1.0 }, (gint64[]) { 2 }, 1,
                                                FALSE);
  g_autoptr(CrTensor) rv = cr_gradcheck_tensor ((double[]) { 1.0, 2.0 }, (gint64[]) { 2 }, 1,
                                                FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) out = cr_batch_norm (x, rm, rv, NULL, NULL, TRUE, 0.2, 1e-5, &error);

  g_assert_no_error (error);
  /* mean (1, 2.5), unbiased var (4, 5.25) */
  cr_test_assert_values_eps (rm, (double[]) { 0.2, 1.3 }, 2, 1e-12);
  cr_test_assert_values_eps (rv, (double[]) { 1.6, 2.65 }, 2, 1e-12);
  cr_test_assert_values_eps (out, (double[]) { 0.0, -0.2672604, 1.2247419, 1.3363020,
                                               -1.2247419, -1.0690416 }, 6, 1e-5);
}

static void
test_errors (void)
{
  g_autoptr(CrTensor) x = rand_t ((gint64[]) { 2, 3, 4 }, 3, 22);
  g_autoptr(CrTensor) w3 = rand_t ((gint64[]) { 3 }, 1, 23);
  g_autoptr(GError) error = NULL;

  g_assert_null (cr_layer_norm (x, (gint64[]) { 3 }, 1, NULL, NULL, 1e-5, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Given normalized_shape=[3], expected input with shape [*, 3], but got "
                        "input of size[2, 3, 4]");
  g_clear_error (&error);
  g_assert_null (cr_layer_norm (x, (gint64[]) { 4 }, 1, w3, NULL, 1e-5, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Expected weight to be of same shape as normalized_shape, but got weight "
                        "of shape [3] and normalized_shape = [4]");
  g_clear_error (&error);
  g_assert_null (cr_batch_norm (x, w3, NULL, NULL, NULL, FALSE, 0.1, 1e-5, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "running_var must be defined in evaluation mode");
  g_clear_error (&error);
  g_assert_null (cr_group_norm (x, 2, NULL, NULL, 1e-5, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Expected number of channels in input to be divisible by num_groups, but "
                        "got input of shape [2, 3, 4] and num_groups=2");
  g_clear_error (&error);
  g_assert_null (cr_einsum ("ij,jk", &x, 1, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "einsum(): fewer operands were provided than specified in the equation");
  g_clear_error (&error);
  g_assert_null (cr_diagonal (x, 0, 1, -2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "diagonal dimensions cannot be identical 1, 1");
}

static const CrUpsampleParams upsample_cases[] = {
  { CR_UPSAMPLE_NEAREST, 1, { 0 }, FALSE, { 1.5 }, TRUE, FALSE },
  { CR_UPSAMPLE_NEAREST, 2, { 5, 2 }, TRUE, { 0 }, FALSE, FALSE },
  { CR_UPSAMPLE_NEAREST_EXACT, 2, { 0 }, FALSE, { 1.5, 0.75 }, TRUE, FALSE },
  { CR_UPSAMPLE_LINEAR, 1, { 7 }, TRUE, { 0 }, FALSE, TRUE },
  { CR_UPSAMPLE_LINEAR, 2, { 0 }, FALSE, { 2.0, 1.5 }, TRUE, FALSE },
  { CR_UPSAMPLE_LINEAR, 2, { 4, 5 }, TRUE, { 0 }, FALSE, TRUE },
  { CR_UPSAMPLE_LINEAR, 3, { 3, 2, 5 }, TRUE, { 0 }, FALSE, FALSE },
};

static CrTensor *
upsample_func (CrTensor *const *inputs,
               guint            n_inputs,
               gpointer         user_data,
               GError         **error)
{
  return cr_upsample (inputs[0], &upsample_cases[GPOINTER_TO_UINT (user_data)], error);
}

/* F.interpolate's ops: every mode, 1 to 3 spatial dims, sizes and scales,
 * align_corners both ways; the backward's own node is checked by the
 * second derivative. */
static void
test_upsample_grads (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (upsample_cases); i++)
    {
      int n = upsample_cases[i].n;
      gint64 shape[5] = { 1, 2, 3, 2, 4 };
      g_autoptr(CrTensor) x = NULL;

      if (n == 1)
        shape[2] = 4;
      x = cr_gradcheck_rand (shape, 2 + n, -1, 1, 500 + i);
      g_test_message ("case %u", i);
      g_assert_true (cr_gradcheck (upsample_func, GUINT_TO_POINTER (i), &x, 1));
      g_assert_true (cr_gradgradcheck (upsample_func, GUINT_TO_POINTER (i), &x, 1));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ops-nnf/layer-norm/grads", test_layer_norm_grads);
  g_test_add_func ("/ops-nnf/batch-norm/grads", test_batch_norm_grads);
  g_test_add_func ("/ops-nnf/batch-norm/running-stats", test_batch_norm_running_stats);
  g_test_add_func ("/ops-nnf/group-instance-norm/grads", test_group_instance_norm_grads);
  g_test_add_func ("/ops-nnf/embedding/grads", test_embedding_grads);
  g_test_add_func ("/ops-nnf/einsum/grads", test_einsum_grads);
  g_test_add_func ("/ops-nnf/pad-distance/grads", test_pad_distance_grads);
  g_test_add_func ("/ops-nnf/index-copy-unflatten/grads", test_index_copy_unflatten_grads);
  g_test_add_func ("/ops-nnf/cdist/grads", test_cdist_grads);
  g_test_add_func ("/ops-nnf/roll/grads", test_roll_grads);
  g_test_add_func ("/ops-nnf/upsample/grads", test_upsample_grads);
  g_test_add_func ("/ops-nnf/errors", test_errors);
  return g_test_run ();
}
