/* test-version-after-write.c — ops that write a tensor in place move its
 * version on after the write, as PyTorch does, so that a version observer
 * (the run record's, which re-reads a leaf initialised in place) sees the
 * new values: scatter_, index_copy_, x[idx] = v, embedding's max_norm
 * renorm and instance norm's running statistics. Each test writes known
 * values and compares them with what the observer read at the bump. */
#include "cr-ops.h"
#include "cr-ops-nnf.h"
#include "cr-version-observer.h"
#include "gradcheck.h"
#include "test-util.h"

/* What the observer read: a copy of each tensor bumped, in order. */
typedef struct {
  GPtrArray *bumped;     /* CrTensor* (refs), the tensors */
  GPtrArray *read;       /* CrTensor* (refs), their values at the bump */
} Seen;

static void
observe (CrTensor *t,
         gpointer  user_data)
{
  Seen *seen = user_data;
  g_ptr_array_add (seen->bumped, cr_tensor_ref (t));
  g_ptr_array_add (seen->read, cr_tensor_copy (t, NULL));
}

static void
seen_begin (Seen *seen)
{
  seen->bumped = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  seen->read = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  cr_tensor_set_version_observer (observe, seen);
}

static void
seen_end (Seen *seen)
{
  cr_tensor_set_version_observer (NULL, NULL);
  g_ptr_array_unref (seen->bumped);
  g_ptr_array_unref (seen->read);
}

/* t was bumped exactly once, and the observer read expected (n values,
 * within eps) then. */
static void
assert_read_once (const Seen     *seen,
                  const CrTensor *t,
                  const double   *expected,
                  gint64          n,
                  double          eps)
{
  const CrTensor *read = NULL;
  guint times = 0;
  for (guint i = 0; i < seen->bumped->len; i++)
    if (g_ptr_array_index (seen->bumped, i) == t)
      {
        read = g_ptr_array_index (seen->read, i);
        times++;
      }
  g_assert_cmpuint (times, ==, 1);
  g_assert_nonnull (read);
  cr_test_assert_values_eps (read, expected, n, eps);
  cr_test_assert_values_eps (t, expected, n, eps);
}

static CrTensor *
zeros_2x3 (void)
{
  const double zeros[6] = { 0 };
  return cr_gradcheck_tensor (zeros, (gint64[]) { 2, 3 }, 2, FALSE);
}

static void
test_scatter (void)
{
  Seen seen;
  g_autoptr (CrTensor) self = zeros_2x3 ();
  g_autoptr (CrTensor) index = cr_test_long_tensor ((gint64[]) { 2, 0 }, (gint64[]) { 2, 1 }, 2);
  g_autoptr (CrTensor) src = cr_gradcheck_tensor ((double[]) { 5, 6 }, (gint64[]) { 2, 1 }, 2, FALSE);
  seen_begin (&seen);
  g_autoptr (CrTensor) out = cr_scatter_full (self, 1, index, src, 0, FALSE, TRUE, NULL);
  g_assert_true (out == self);
  assert_read_once (&seen, self, (double[]) { 0, 0, 5, 6, 0, 0 }, 6, 1e-12);
  seen_end (&seen);
}

static void
test_index_copy (void)
{
  Seen seen;
  g_autoptr (CrTensor) self = zeros_2x3 ();
  g_autoptr (CrTensor) index = cr_test_long_tensor ((gint64[]) { 1 }, (gint64[]) { 1 }, 1);
  g_autoptr (CrTensor) source = cr_gradcheck_tensor ((double[]) { 1, 2, 3 }, (gint64[]) { 1, 3 }, 2,
                                                     FALSE);
  seen_begin (&seen);
  g_assert_true (cr_index_copy_ (self, 0, index, source, NULL));
  assert_read_once (&seen, self, (double[]) { 0, 0, 0, 1, 2, 3 }, 6, 1e-12);
  seen_end (&seen);
}

/* x[idx0, idx1] = 9 (advanced: index_put_) and x[1] = 4 (basic: a view
 * written, x's version moved). */
static void
test_index_set (void)
{
  Seen seen;
  g_autoptr (CrTensor) x = zeros_2x3 ();
  g_autoptr (CrTensor) rows = cr_test_long_tensor ((gint64[]) { 0 }, (gint64[]) { 1 }, 1);
  g_autoptr (CrTensor) cols = cr_test_long_tensor ((gint64[]) { 1 }, (gint64[]) { 1 }, 1);
  g_autoptr (CrTensor) nine = cr_tensor_new_scalar (9, CR_DTYPE_FLOAT64);
  CrIndexItem advanced[2] = { { .kind = CR_INDEX_TENSOR, .tensor = rows },
                              { .kind = CR_INDEX_TENSOR, .tensor = cols } };
  seen_begin (&seen);
  g_assert_true (cr_index_set (x, advanced, 2, nine, NULL));
  assert_read_once (&seen, x, (double[]) { 0, 9, 0, 0, 0, 0 }, 6, 1e-12);
  seen_end (&seen);

  g_autoptr (CrTensor) y = zeros_2x3 ();
  g_autoptr (CrTensor) four = cr_tensor_new_scalar (4, CR_DTYPE_FLOAT64);
  CrIndexItem row[1] = { { .kind = CR_INDEX_INT, .value = 1 } };
  seen_begin (&seen);
  g_assert_true (cr_index_set (y, row, 1, four, NULL));
  assert_read_once (&seen, y, (double[]) { 0, 0, 0, 4, 4, 4 }, 6, 1e-12);
  seen_end (&seen);
}

/* F.embedding(max_norm=1) renormalizes the rows it reads: row 0, (3, 4),
 * becomes (3, 4) / (5 + 1e-7). */
static void
test_embedding_renorm (void)
{
  Seen seen;
  g_autoptr (CrTensor) weight = cr_gradcheck_tensor ((double[]) { 3, 4, 0.5, 0.5 },
                                                     (gint64[]) { 2, 2 }, 2, FALSE);
  g_autoptr (CrTensor) indices = cr_test_long_tensor ((gint64[]) { 0 }, (gint64[]) { 1 }, 1);
  seen_begin (&seen);
  g_autoptr (CrTensor) out = cr_embedding (weight, indices, FALSE, 0, FALSE, TRUE, 1.0, 2.0, NULL);
  g_assert_nonnull (out);
  double scale = 1.0 / (5.0 + 1e-7);
  assert_read_once (&seen, weight, (double[]) { 3 * scale, 4 * scale, 0.5, 0.5 }, 4, 1e-12);
  seen_end (&seen);
}

/* Instance norm with running statistics (momentum 0.1, from 0 and 1): the
 * instances (1, 3) and (5, 7) have means 2 and 6 and unbiased variances 2,
 * so the running mean becomes 0.1 * 4 and the variance 0.9 + 0.1 * 2. */
static void
test_instance_norm_running (void)
{
  Seen seen;
  g_autoptr (CrTensor) x = cr_gradcheck_tensor ((double[]) { 1, 3, 5, 7 }, (gint64[]) { 2, 1, 2 }, 3,
                                                FALSE);
  g_autoptr (CrTensor) mean = cr_gradcheck_tensor ((double[]) { 0 }, (gint64[]) { 1 }, 1, FALSE);
  g_autoptr (CrTensor) var = cr_gradcheck_tensor ((double[]) { 1 }, (gint64[]) { 1 }, 1, FALSE);
  seen_begin (&seen);
  g_autoptr (CrTensor) out = cr_instance_norm (x, mean, var, NULL, NULL, TRUE, 0.1, 1e-5, NULL);
  g_assert_nonnull (out);
  assert_read_once (&seen, mean, (double[]) { 0.4 }, 1, 1e-12);
  assert_read_once (&seen, var, (double[]) { 1.1 }, 1, 1e-12);
  seen_end (&seen);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/version-after-write/scatter", test_scatter);
  g_test_add_func ("/version-after-write/index-copy", test_index_copy);
  g_test_add_func ("/version-after-write/index-set", test_index_set);
  g_test_add_func ("/version-after-write/embedding-renorm", test_embedding_renorm);
  g_test_add_func ("/version-after-write/instance-norm-running", test_instance_norm_running);
  return g_test_run ();
}
