/* test-training-rules.c — each optimizer's rule, told with its numbers,
 * against what the script's parameters really became: a small model
 * trained a few iterations by every optimizer setting a learner meets, and
 * for every update and every element the rule's result (worked out from
 * the numbers before the step) equal to the parameter and the optimizer's
 * state the record kept after it. */
#include "cr-training-rules.h"
#include "cr-training.h"
#include "teach-test-util.h"

#include <math.h>
#include <string.h>

/* A 2×3 weight and a bias of 3 over a few iterations; the optimizer's
 * constructor call is the case's. */
static const char script_format[] =
  "import torch\n"
  "torch.manual_seed(0)\n"
  "w = torch.randn(2, 3, requires_grad=True)\n"
  "b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\n"
  "x = torch.randn(4, 2)\n"
  "y = torch.randn(4, 3)\n"
  "opt = torch.optim.%s\n"
  "for i in range(5):\n"
  "    opt.zero_grad()\n"
  "    loss = ((x @ w + b - y) ** 2).mean() + (w ** 2).sum() * (0.3 if i %% 2 else 0.01)\n"
  "    loss.backward()\n"
  "    opt.step()\n";

/* Float32 steps against doubles: a few units in the last place of the
 * largest number in play. */
static gboolean
close_enough (double worked,
              double recorded,
              double scale)
{
  return fabs (worked - recorded) <= 4e-6 * MAX (scale, fabs (recorded)) + 1e-12;
}

static void
check_optimizer (gconstpointer data)
{
  const char *constructor = data;
  g_autofree char *source = g_strdup_printf (script_format, constructor);
  g_autoptr (CrRunRecord) record = teach_test_record_script (source, "rules.py");
  /* Two parameters, five steps each. */
  g_assert_cmpuint (record->updates->len, ==, 10);
  guint checked = 0;
  for (guint i = 0; i < record->updates->len; i++)
    {
      const CrRecordUpdate *u = g_ptr_array_index (record->updates, i);
      g_assert_true (cr_training_rule_is_told (u));
      g_assert_nonnull (u->after);
      g_assert_cmpint (u->after->n_values, ==, u->after->numel);
      for (gint64 e = 0; e < u->after->numel; e++)
        {
          g_autoptr (CrTrainingWorked) worked = cr_training_work (u, e);
          g_assert_true (worked->told);
          double p = cr_training_value_at (u->before, e);
          double after = cr_training_value_at (u->after, e);
          if (!close_enough (worked->after, after, MAX (1.0, fabs (p))))
            {
              g_test_fail_printf ("%s: %s step %u element %" G_GINT64_FORMAT ": the rule gives %.9g, "
                                  "the parameter became %.9g", constructor, u->name, u->step, e,
                                  worked->after, after);
              return;
            }
          for (guint k = 0; k < u->state->len; k++)
            {
              const CrRecordOptimState *state = g_ptr_array_index (u->state, k);
              double by_rule = cr_training_worked_state (worked, state->name);
              if (!state->after)
                continue;
              if (isnan (by_rule))
                {
                  g_test_fail_printf ("%s: the rule does not tell the state %s", constructor, state->name);
                  return;
                }
              double kept = cr_training_value_at (state->after, g_str_equal (state->name, "step") ? 0 : e);
              if (!close_enough (by_rule, kept, 1e-6))
                {
                  g_test_fail_printf ("%s: %s step %u element %" G_GINT64_FORMAT ": the rule's %s is "
                                      "%.9g, the optimizer kept %.9g", constructor, u->name, u->step,
                                      e, state->name, by_rule, kept);
                  return;
                }
            }
          /* Every line of arithmetic has its number. */
          for (guint k = 0; k < worked->lines->len; k++)
            {
              const CrTrainingRuleLine *line = g_ptr_array_index (worked->lines, k);
              g_assert_true (isfinite (line->result));
            }
          checked++;
        }
    }
  g_test_message ("%s: %u elements' steps", constructor, checked);
  g_assert_cmpuint (checked, ==, 5 * (6 + 3));
}

/* An optimizer whose rule is not told says so, and makes up no number. */
static void
test_not_told (void)
{
  g_autofree char *source = g_strdup_printf (script_format, "Adadelta([w, b], lr=0.5)");
  g_autoptr (CrRunRecord) record = teach_test_record_script (source, "rules.py");
  g_assert_cmpuint (record->updates->len, ==, 10);
  const CrRecordUpdate *u = g_ptr_array_index (record->updates, 2);
  g_assert_false (cr_training_rule_is_told (u));
  g_autoptr (CrTrainingWorked) worked = cr_training_work (u, 1);
  g_assert_false (worked->told);
  g_assert_true (isnan (worked->after));
  g_assert_cmpstr (cr_training_rule (u), ==, "this optimizer's rule is not told");
  g_autofree char *text = cr_training_explain (record, u, 1);
  g_assert_nonnull (strstr (text, "Adadelta: this optimizer's rule is not told"));
  g_assert_null (strstr (text, "←"));
}

/* The text follows the element asked for, on each optimizer. */
static void
test_element_text (void)
{
  g_autofree char *source = g_strdup_printf (script_format,
                                             "RMSprop([w, b], lr=0.01, momentum=0.5, centered=True)");
  g_autoptr (CrRunRecord) record = teach_test_record_script (source, "rules.py");
  const CrRecordUpdate *u = g_ptr_array_index (record->updates, 0);
  g_autofree char *text = cr_training_explain (record, u, 4);
  g_assert_nonnull (strstr (text, "w[1, 1]:"));
  g_assert_nonnull (strstr (text, "ḡ ← α·ḡ + (1−α)·g"));
  g_assert_nonnull (strstr (text, "s = √(v − ḡ²) + ε"));
  g_assert_nonnull (strstr (text, "buf ← μ·buf + g/s"));
  g_assert_nonnull (strstr (text, "alpha α = 0.99"));
  /* The element's result on the last line of the rule is the parameter's. */
  char after[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (after, sizeof after, "%.5g", cr_training_value_at (u->after, 4));
  g_autofree char *last = g_strdup_printf ("= %s\n", after);
  g_assert_nonnull (strstr (text, last));
  /* Past the end: the last element. */
  g_autofree char *clamped = cr_training_explain (record, u, 99);
  g_assert_nonnull (strstr (clamped, "w[1, 2]:"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const char *const optimizers[] = {
    "SGD([w, b], lr=0.1)",
    "SGD([w, b], lr=0.1, momentum=0.9)",
    "SGD([w, b], lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1)",
    "SGD([w, b], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)",
    "SGD([w, b], lr=0.05, maximize=True)",
    "Adam([w, b], lr=0.1)",
    "Adam([w, b], lr=0.1, weight_decay=0.1, amsgrad=True)",
    "Adam([w, b], lr=0.05, betas=(0.5, 0.9), maximize=True)",
    "AdamW([w, b], lr=0.1, weight_decay=0.1)",
    "AdamW([w, b], lr=0.1, amsgrad=True)",
    "RMSprop([w, b], lr=0.01)",
    "RMSprop([w, b], lr=0.01, alpha=0.9, momentum=0.5)",
    "RMSprop([w, b], lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)",
    "RMSprop([w, b], lr=0.01, centered=True)",
    "Adagrad([w, b], lr=0.1)",
    "Adagrad([w, b], lr=0.1, lr_decay=0.5, weight_decay=0.1, initial_accumulator_value=0.2)",
  };
  for (guint i = 0; i < G_N_ELEMENTS (optimizers); i++)
    {
      g_autofree char *name = g_strdup_printf ("/training-rules/%s", optimizers[i]);
      /* A test path has no spaces or brackets in it that GLib minds. */
      g_strdelimit (name, " ()[]=,", '_');
      g_test_add_data_func (name, optimizers[i], check_optimizer);
    }
  g_test_add_func ("/training-rules/not-told", test_not_told);
  g_test_add_func ("/training-rules/element-text", test_element_text);
  return g_test_run ();
}
