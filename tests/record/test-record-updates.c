/* test-record-updates.c — a training loop's parameter updates in the run
 * record: what a big parameter's snapshots keep (every element up to
 * CR_RECORD_UPDATE_MAX_VALUES, so that the Training page can follow any of
 * them), and that each element kept is the one the optimizer computed. */
#include "cr-training-rules.h"
#include "record-test-util.h"

#include <math.h>

/* A 10×16 weight (160 elements, past the 64 a small tensor keeps whole)
 * and a 40×40 one (past what an update keeps), three Adam steps. */
static const char big_parameters[] =
  "import torch\n"
  "torch.manual_seed(0)\n"
  "w = torch.randn(10, 16, requires_grad=True)\n"
  "big = torch.randn(40, 40, requires_grad=True)\n"
  "opt = torch.optim.Adam([w, big], lr=0.1)\n"
  "x = torch.randn(3, 10)\n"
  "for i in range(3):\n"
  "    opt.zero_grad()\n"
  "    loss = (x @ w).pow(2).mean() + (big * big).sum()\n"
  "    loss.backward()\n"
  "    opt.step()\n";

static void
assert_keeps (const CrTensorSnapshot *s,
              gint64                  numel,
              gint64                  n_values)
{
  g_assert_nonnull (s);
  g_assert_cmpint (s->numel, ==, numel);
  g_assert_cmpint (s->n_values, ==, n_values);
}

static void
test_big_parameter_values (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("train.py", big_parameters, NULL);
  g_assert_cmpuint (record->updates->len, ==, 6);
  for (guint i = 0; i < record->updates->len; i++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (record->updates, i);
      gboolean is_w = g_str_equal (u->name, "w");
      gint64 numel = is_w ? 160 : 1600;
      gint64 kept = is_w ? 160 : CR_RECORD_UPDATE_MAX_VALUES;
      assert_keeps (u->before, numel, kept);
      assert_keeps (u->grad, numel, kept);
      assert_keeps (u->after, numel, kept);
      const CrRecordOptimState *exp_avg = cr_record_update_state (u, "exp_avg");
      g_assert_nonnull (exp_avg);
      assert_keeps (exp_avg->after, numel, kept);
      /* The last element kept, and the first one past it: the rule worked
       * from the numbers before gives the value after. */
      g_autoptr (CrTrainingWorked) worked = cr_training_work (u, kept - 1);
      double after = cr_training_value_at (u->after, kept - 1);
      g_assert_true (isfinite (after));
      g_assert_cmpfloat_with_epsilon (worked->after, after, 1e-5 * MAX (1.0, fabs (after)));
      g_assert_true (isnan (cr_training_value_at (u->after, kept)));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-updates/big-parameter-values", test_big_parameter_values);
  return g_test_run ();
}
