/* test-record-cost.c — what keeps recording a run cheap gives what the
 * eager way gave: a snapshot's deferred text is the text formatted at once,
 * character for character (signed zeros, NaN, inf, bools, int64s, shapes);
 * where the values kept cannot give it exactly (int64s past 2**53, the
 * value budget spent) the text is formatted at once; a recorded run defers
 * its snapshots' texts, and reading them from several threads at once
 * gives one text. The same tensor snapshotted again, unchanged, shares its
 * snapshot; changed in place, it gets a new one. */
#include "cr-interp.h"
#include "record-test-util.h"
#include "cr-snapshot-cache.h"
#include "cr-tensor.h"

#include <math.h>
#include <string.h>

static void
assert_deferred_as_eager (CrTensor *t,
                          gboolean  deferred)
{
  CrTensorSnapshot *eager = cr_tensor_snapshot_new (t);
  CrTensorSnapshot *lazy = cr_tensor_snapshot_new_deferred (t, CR_SNAPSHOT_MAX_VALUES);
  g_assert_cmpint (lazy->text_deferred, ==, deferred);
  if (deferred)
    g_assert_null (lazy->text);
  g_assert_false (eager->text_deferred);
  /* A copy made before the text is formatted formats its own. */
  CrTensorSnapshot *copy = cr_tensor_snapshot_copy (lazy);
  g_assert_cmpstr (cr_tensor_snapshot_get_text (lazy), ==, eager->text);
  g_assert_cmpstr (cr_tensor_snapshot_get_text (copy), ==, eager->text);
  /* Formatted once, then the same string. */
  g_assert_true (cr_tensor_snapshot_get_text (lazy) == cr_tensor_snapshot_get_text (lazy));
  cr_tensor_snapshot_free (copy);
  cr_tensor_snapshot_free (lazy);
  cr_tensor_snapshot_free (eager);
}

static void
test_deferred_text (void)
{
  float f[6] = { 0.0f, -0.0f, NAN, INFINITY, -1.5e-7f, 123456.75f };
  gint64 shape6 = 6, shape23[2] = { 2, 3 }, shape3 = 3, shape2 = 2, shape0 = 0;
  double d[3] = { 1.0 / 3.0, -2.0, 1e300 };
  guint8 b[3] = { 1, 0, 1 };
  gint64 small[3] = { -7, 0, G_GINT64_CONSTANT (9007199254740992) };
  gint64 big[2] = { G_GINT64_CONSTANT (9007199254740992), G_GINT64_CONSTANT (9007199254740993) };
  gint32 i32[3] = { G_MININT32, 0, G_MAXINT32 };

  g_autoptr (CrTensor) vector = cr_tensor_new_from_data (f, &shape6, 1, CR_DTYPE_FLOAT32, NULL);
  g_autoptr (CrTensor) matrix = cr_tensor_new_from_data (f, shape23, 2, CR_DTYPE_FLOAT32, NULL);
  g_autoptr (CrTensor) doubles = cr_tensor_new_from_data (d, &shape3, 1, CR_DTYPE_FLOAT64, NULL);
  g_autoptr (CrTensor) bools = cr_tensor_new_from_data (b, &shape3, 1, CR_DTYPE_BOOL, NULL);
  g_autoptr (CrTensor) ints = cr_tensor_new_from_data (small, &shape3, 1, CR_DTYPE_INT64, NULL);
  g_autoptr (CrTensor) int32s = cr_tensor_new_from_data (i32, &shape3, 1, CR_DTYPE_INT32, NULL);
  g_autoptr (CrTensor) scalar = cr_tensor_new_scalar (2.5, CR_DTYPE_FLOAT32);
  g_autoptr (CrTensor) huge = cr_tensor_new_from_data (big, &shape2, 1, CR_DTYPE_INT64, NULL);
  g_autoptr (CrTensor) empty = cr_tensor_new_from_data (f, &shape0, 1, CR_DTYPE_FLOAT32, NULL);
  assert_deferred_as_eager (vector, TRUE);
  assert_deferred_as_eager (matrix, TRUE);
  assert_deferred_as_eager (doubles, TRUE);
  assert_deferred_as_eager (bools, TRUE);
  assert_deferred_as_eager (ints, TRUE);
  assert_deferred_as_eager (int32s, TRUE);
  assert_deferred_as_eager (scalar, TRUE);
  /* 2**53 + 1 is no double: formatted from the tensor at once. */
  assert_deferred_as_eager (huge, FALSE);
  assert_deferred_as_eager (empty, FALSE);

  /* The budget spent: no values, the text at once. */
  CrTensorSnapshot *spent = cr_tensor_snapshot_new_deferred (vector, 0);
  g_assert_false (spent->text_deferred);
  g_assert_cmpint (spent->n_values, ==, 0);
  g_assert_nonnull (spent->text);
  cr_tensor_snapshot_free (spent);

  /* Too big for a text either way. */
  g_autoptr (CrTensor) long_one = cr_tensor_new_arange (0, 65, 1, CR_DTYPE_FLOAT32, NULL);
  CrTensorSnapshot *no_text = cr_tensor_snapshot_new_deferred (long_one, CR_SNAPSHOT_MAX_VALUES);
  g_assert_false (no_text->text_deferred);
  g_assert_null (cr_tensor_snapshot_get_text (no_text));
  cr_tensor_snapshot_free (no_text);
  g_assert_null (cr_tensor_snapshot_get_text (NULL));
}

static gpointer
read_text (gpointer data)
{
  return (gpointer) cr_tensor_snapshot_get_text (data);
}

static void
test_deferred_text_threads (void)
{
  float f[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
  gint64 shape[2] = { 2, 2 };
  g_autoptr (CrTensor) t = cr_tensor_new_from_data (f, shape, 2, CR_DTYPE_FLOAT32, NULL);
  for (int round = 0; round < 20; round++)
    {
      CrTensorSnapshot *s = cr_tensor_snapshot_new_deferred (t, CR_SNAPSHOT_MAX_VALUES);
      GThread *threads[4];
      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        threads[i] = g_thread_new ("text", read_text, s);
      const char *texts[4];
      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        texts[i] = g_thread_join (threads[i]);
      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        g_assert_true (texts[i] == s->text);
      g_assert_cmpstr (s->text, ==, "[[1., 2.],\n [3., 4.]]");
      cr_tensor_snapshot_free (s);
    }
}

static CrRunRecord *
record_script (const char *source)
{
  return record_test_run ("demo.py", source, NULL);
}

/* A recorded run formats no text until one is read, and what is read is
 * what print() shows. */
static void
test_recorded_run_defers (void)
{
  g_autoptr (CrRunRecord) record = record_script (
    "import torch\n"
    "x = torch.tensor([1.0, -0.0, 3.0], requires_grad=True)\n"
    "y = (x * x).sum()\n"
    "y.backward()\n");
  guint deferred = 0;
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->value && t->value->text_deferred)
        {
          g_assert_null (t->value->text);
          deferred++;
        }
    }
  g_assert_cmpuint (deferred, >, 0);
  const CrRecordBackward *call = g_ptr_array_index (record->backwards, 0);
  const CrRecordStep *last = g_ptr_array_index (call->steps, call->steps->len - 1);
  g_assert_cmpint (last->kind, ==, CR_RECORD_STEP_ACCUMULATE);
  g_assert_true (last->grad_after->text_deferred);
  g_assert_cmpstr (cr_tensor_snapshot_get_text (last->grad_after), ==, "[2., -0., 6.]");
}

static void
test_shared_snapshots (void)
{
  float f[3] = { 1.0f, 2.0f, 3.0f };
  gint64 shape = 3;
  g_autoptr (CrTensor) t = cr_tensor_new_from_data (f, &shape, 1, CR_DTYPE_FLOAT32, NULL);
  g_autoptr (CrTensor) other = cr_tensor_new_from_data (f, &shape, 1, CR_DTYPE_FLOAT32, NULL);
  CrSnapshotCache *cache = cr_snapshot_cache_new ();
  CrTensorSnapshot *s = cr_tensor_snapshot_new_deferred (t, CR_SNAPSHOT_MAX_VALUES);
  cr_snapshot_cache_insert (cache, t, s);
  CrTensorSnapshot *again = cr_snapshot_cache_lookup (cache, t);
  g_assert_true (again == s);
  g_assert_null (cr_snapshot_cache_lookup (cache, other));
  /* A copy is a snapshot of its own, not a holder of the shared one. */
  CrTensorSnapshot *copy = cr_tensor_snapshot_copy (again);
  g_assert_cmpint (copy->shares, ==, 0);
  cr_tensor_snapshot_free (copy);
  /* Changed in place: the version moved on, the cached snapshot is stale. */
  cr_tensor_bump_version (t);
  g_assert_null (cr_snapshot_cache_lookup (cache, t));
  /* Each holder frees its hold; the cache's goes with the cache. */
  cr_tensor_snapshot_free (again);
  cr_tensor_snapshot_free (s);
  cr_snapshot_cache_free (cache);
  cr_snapshot_cache_free (NULL);
  cr_tensor_snapshot_free (cr_tensor_snapshot_share (NULL));
}

/* In a recorded chain, a step's outgoing gradient is its product (no
 * broadcast) and the next step's incoming gradient: one snapshot. */
static void
test_recorded_run_shares (void)
{
  g_autoptr (CrRunRecord) record = record_script (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * 3).sum()\n"
    "y.backward()\n");
  const CrRecordBackward *call = g_ptr_array_index (record->backwards, 0);
  g_assert_cmpuint (call->steps->len, ==, 4);
  const CrRecordStep *mul = g_ptr_array_index (call->steps, 1);
  const CrRecordStep *exp = g_ptr_array_index (call->steps, 2);
  g_assert_cmpstr (mul->title, ==, "MulBackward0");
  g_assert_cmpstr (exp->title, ==, "ExpBackward0");
  const CrRecordStepInput *mul_in = g_ptr_array_index (mul->inputs, 0);
  g_assert_true (mul_in->product == mul_in->outgoing.value);
  const CrRecordGrad *exp_in = g_ptr_array_index (exp->incoming, 0);
  g_assert_true (exp_in->value == mul_in->outgoing.value);
  g_assert_cmpstr (cr_tensor_snapshot_get_text (exp_in->value), ==, "[3., 3.]");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-cost/deferred-text", test_deferred_text);
  g_test_add_func ("/record-cost/deferred-text-threads", test_deferred_text_threads);
  g_test_add_func ("/record-cost/recorded-run-defers", test_recorded_run_defers);
  g_test_add_func ("/record-cost/shared-snapshots", test_shared_snapshots);
  g_test_add_func ("/record-cost/recorded-run-shares", test_recorded_run_shares);
  return g_test_run ();
}
