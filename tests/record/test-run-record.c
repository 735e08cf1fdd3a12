/* test-run-record.c — the run record on hand-built records: constructors
 * (zeroed, indices -1, owning arrays), reference counting, and the
 * state-at-step queries across backward calls. */
#include "cr-run-record.h"
#include "cr-tensor.h"

#include <string.h>

/* A snapshot holding one number, for telling writes apart. */
static CrTensorSnapshot *
scalar_snapshot (double v)
{
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->numel = 1;
  s->n_values = 1;
  s->values = g_new (double, 1);
  s->values[0] = v;
  s->dtype = g_strdup ("torch.float32");
  s->device = g_strdup ("cpu");
  s->min = s->max = s->mean = v;
  return s;
}

static double
snapshot_value (const CrTensorSnapshot *s)
{
  g_assert_nonnull (s);
  g_assert_cmpint (s->n_values, ==, 1);
  return s->values[0];
}

static void
test_constructors (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new ("demo.py", "x = 1\n");
  g_assert_cmpstr (record->filename, ==, "demo.py");
  g_assert_cmpstr (record->source, ==, "x = 1\n");

  CrRecordTensor *t0 = cr_run_record_add_tensor (record);
  CrRecordTensor *t1 = cr_run_record_add_tensor (record);
  g_assert_cmpuint (t0->id, ==, 0);
  g_assert_cmpuint (t1->id, ==, 1);
  g_assert_cmpint (t1->op, ==, -1);
  g_assert_cmpint (t1->source, ==, -1);
  g_assert_cmpint (t1->region, ==, -1);
  g_assert_null (t1->name);
  g_assert_cmpuint (t1->iteration, ==, 0);
  t1->name = g_strdup ("y");
  t1->value = scalar_snapshot (2.0);

  CrRecordOp *op = cr_run_record_add_op (record);
  g_assert_cmpuint (op->id, ==, 0);
  g_assert_cmpint (op->module_call, ==, -1);
  g_assert_cmpuint (op->inputs->len, ==, 0);
  g_assert_cmpuint (op->outputs->len, ==, 0);
  g_assert_cmpuint (op->saved->len, ==, 0);
  int in = 0;
  g_array_append_val (op->inputs, in);
  CrRecordSaved *saved = cr_record_op_add_saved (op);
  g_assert_cmpint (saved->tensor, ==, -1);
  g_assert_cmpint (saved->freed_backward, ==, -1);
  g_assert_cmpint (saved->freed_step, ==, -1);
  saved->name = g_strdup ("self");
  saved->value = scalar_snapshot (1.0);

  CrRecordModuleCall *call = cr_run_record_add_module_call (record);
  g_assert_cmpint (call->parent, ==, -1);
  call->path = g_strdup ("fc1");
  CrRecordRegion *region = cr_run_record_add_region (record);
  g_assert_cmpuint (region->id, ==, 0);

  CrRecordBackward *bw = cr_run_record_add_backward (record);
  g_assert_cmpint (bw->error, ==, -1);
  g_assert_cmpuint (bw->roots->len, ==, 0);
  CrRecordStep *step = cr_record_backward_add_step (bw);
  g_assert_cmpuint (step->index, ==, 0);
  g_assert_cmpint (step->op, ==, -1);
  g_assert_cmpint (step->leaf, ==, -1);
  CrRecordStepInput *sin = cr_record_step_add_input (step);
  g_assert_cmpint (sin->tensor, ==, -1);
  g_assert_cmpint (sin->to_op, ==, -1);
  g_assert_cmpint (sin->to_leaf, ==, -1);
  g_assert_cmpint (sin->outgoing.tensor, ==, -1);
  sin->outgoing.name = g_strdup ("∂L/∂x");
  sin->outgoing.value = scalar_snapshot (3.0);
  sin->reduction = g_new0 (CrRecordReduction, 1);
  CrRecordHookCall *hook = cr_record_step_add_hook (step);
  g_assert_cmpint (hook->tensor, ==, -1);
  hook->before = scalar_snapshot (1.0);
  CrRecordGrad *grad = cr_record_step_add_incoming (step);
  g_assert_cmpint (grad->tensor, ==, -1);
  CrRecordAccumulation *acc = cr_record_step_add_accumulation (step);
  g_assert_cmpint (acc->tensor, ==, -1);
  g_assert_cmpint (acc->to_op, ==, -1);
  acc->sum = scalar_snapshot (4.0);
  g_assert_cmpuint (cr_record_backward_add_step (bw)->index, ==, 1);

  CrRecordError *err = cr_run_record_add_error (record);
  g_assert_cmpint (err->op, ==, -1);
  g_assert_cmpint (err->backward, ==, -1);
  g_assert_cmpint (err->step, ==, -1);
  g_assert_cmpint (err->tensor, ==, -1);
  g_assert_cmpint (err->culprit_span.line, ==, 0);

  /* A second reference keeps it alive past the first unref. */
  CrRunRecord *other = cr_run_record_ref (record);
  cr_run_record_unref (other);
  g_assert_cmpuint (record->tensors->len, ==, 2);
  cr_run_record_unref (NULL);
}

/* x (leaf 0) gets .grad 1 in backward 0 (step 1), 3 in backward 1 (step 2,
 * accumulated); y (non-leaf 1) retains its grad 5 at step 0 of each call;
 * between the calls the script zeroed x.grad (backward 1's grad_before 0). */
static CrRunRecord *
two_backwards (void)
{
  CrRunRecord *record = cr_run_record_new (NULL, NULL);
  cr_run_record_add_tensor (record);
  cr_run_record_add_tensor (record);
  CrRecordOp *op = cr_run_record_add_op (record);
  CrRecordSaved *saved = cr_record_op_add_saved (op);
  cr_record_op_add_saved (op);  /* never freed */

  for (int b = 0; b < 2; b++)
    {
      CrRecordBackward *bw = cr_run_record_add_backward (record);
      CrRecordStep *node = cr_record_backward_add_step (bw);
      node->kind = CR_RECORD_STEP_NODE;
      node->op = 0;
      CrRecordHookCall *retain = cr_record_step_add_hook (node);
      retain->kind = CR_RECORD_HOOK_RETAIN_GRAD;
      retain->tensor = 1;
      retain->after = scalar_snapshot (5.0 + b);
      CrRecordHookCall *other_hook = cr_record_step_add_hook (node);
      other_hook->kind = CR_RECORD_HOOK_TENSOR;
      other_hook->tensor = 0;
      other_hook->after = scalar_snapshot (99.0);
      if (b == 1)
        cr_record_backward_add_step (bw);  /* an unrelated node */
      CrRecordStep *accumulate = cr_record_backward_add_step (bw);
      accumulate->kind = CR_RECORD_STEP_ACCUMULATE;
      accumulate->leaf = 0;
      accumulate->grad_before = b == 0 ? NULL : scalar_snapshot (0.0);
      accumulate->grad_after = scalar_snapshot (b == 0 ? 1.0 : 3.0);
    }
  saved->freed_backward = 0;
  saved->freed_step = 0;
  return record;
}

static void
test_grad_at (void)
{
  g_autoptr (CrRunRecord) record = two_backwards ();
  /* Before the first call nothing has a .grad. */
  g_assert_null (cr_run_record_grad_at (record, 0, 0, -1));
  g_assert_null (cr_run_record_grad_at (record, 0, 0, 0));
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 0, 0, 1)), ==, 1.0);
  /* A tensor hook's result is not .grad. */
  g_assert_null (cr_run_record_grad_at (record, 0, 0, 0));
  /* retain_grad writes the non-leaf's .grad before its node runs. */
  g_assert_null (cr_run_record_grad_at (record, 1, 0, -1));
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 1, 0, 0)), ==, 5.0);
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 1, 0, 1)), ==, 5.0);
  /* Across calls: y's grad from call 0 stands until call 1 rewrites it. */
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 1, 1, -1)), ==, 5.0);
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 1, 1, 0)), ==, 6.0);
  /* x.grad was zeroed between the calls: call 1's AccumulateGrad knew. */
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 0, 1, -1)), ==, 0.0);
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 0, 1, 1)), ==, 0.0);
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 0, 1, 2)), ==, 3.0);
  g_assert_cmpfloat (snapshot_value (cr_run_record_grad_at (record, 0, 1, 99)), ==, 3.0);
  /* Out of range asks get None. */
  g_assert_null (cr_run_record_grad_at (record, 0, 2, 0));
  g_assert_null (cr_run_record_grad_at (record, -1, 0, 0));
  g_assert_null (cr_run_record_grad_at (record, 7, 1, 5));
}

static void
test_saved_freed_at (void)
{
  g_autoptr (CrRunRecord) record = two_backwards ();
  g_assert_false (cr_run_record_saved_freed_at (record, 0, 0, 0, -1));
  g_assert_true (cr_run_record_saved_freed_at (record, 0, 0, 0, 0));
  g_assert_true (cr_run_record_saved_freed_at (record, 0, 0, 0, 1));
  g_assert_true (cr_run_record_saved_freed_at (record, 0, 0, 1, -1));
  g_assert_false (cr_run_record_saved_freed_at (record, 0, 1, 1, 5));
  g_assert_false (cr_run_record_saved_freed_at (record, 0, 2, 1, 5));
  g_assert_false (cr_run_record_saved_freed_at (record, 1, 0, 1, 5));
  g_assert_false (cr_run_record_saved_freed_at (record, -1, 0, 1, 5));
}

static void
test_op_ran_at (void)
{
  g_autoptr (CrRunRecord) record = two_backwards ();
  g_assert_false (cr_run_record_op_ran_at (record, 0, 0, -1));
  g_assert_true (cr_run_record_op_ran_at (record, 0, 0, 0));
  /* In that call only: call 1 starts with the op not run yet. */
  g_assert_false (cr_run_record_op_ran_at (record, 0, 1, -1));
  g_assert_true (cr_run_record_op_ran_at (record, 0, 1, 2));
  g_assert_false (cr_run_record_op_ran_at (record, 1, 1, 2));
  g_assert_false (cr_run_record_op_ran_at (record, 0, 2, 0));
  /* A step that raised did not run its node: call 1's first step fails. */
  CrRecordBackward *second = g_ptr_array_index (record->backwards, 1);
  ((CrRecordStep *) g_ptr_array_index (second->steps, 0))->failed = TRUE;
  g_assert_false (cr_run_record_op_ran_at (record, 0, 1, 2));
  g_assert_true (cr_run_record_op_ran_at (record, 0, 0, 0));
}

/* Snapshot texts are kept per thread by their bytes: 0. and -0. stay
 * apart, and so do int64s that one double cannot tell apart; the same
 * data again gets the same text. Expected text as PyTorch 1.13 prints it. */
static void
test_snapshot_text (void)
{
  gint64 one = 1, two = 2;
  float zero = 0.0f, negative_zero = -0.0f;
  gint64 big[2] = { G_GINT64_CONSTANT (9007199254740992), G_GINT64_CONSTANT (9007199254740993) };
  gint64 big_rounded[2] = { G_GINT64_CONSTANT (9007199254740992), G_GINT64_CONSTANT (9007199254740992) };
  struct { gconstpointer data; const gint64 *shape; CrDType dtype; const char *text; } cases[] = {
    { &zero, &one, CR_DTYPE_FLOAT32, "[0.]" },
    { &negative_zero, &one, CR_DTYPE_FLOAT32, "[-0.]" },
    { &zero, &one, CR_DTYPE_FLOAT32, "[0.]" },
    { big, &two, CR_DTYPE_INT64, "[9007199254740992, 9007199254740993]" },
    { big_rounded, &two, CR_DTYPE_INT64, "[9007199254740992, 9007199254740992]" },
    { big, &two, CR_DTYPE_INT64, "[9007199254740992, 9007199254740993]" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CrTensor) t = cr_tensor_new_from_data (cases[i].data, cases[i].shape, 1,
                                                        cases[i].dtype, NULL);
      g_assert_nonnull (t);
      CrTensorSnapshot *s = cr_tensor_snapshot_new (t);
      g_assert_cmpstr (s->text, ==, cases[i].text);
      cr_tensor_snapshot_free (s);
    }
}

/* The step queries the card and its text share: what a step's hooks did,
 * and the root sums told at the first step that takes each in. */
static void
test_step_queries (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new ("demo.py", "y = x * 2\n");
  CrRecordBackward *bw = cr_run_record_add_backward (record);
  CrRecordStep *first = cr_record_backward_add_step (bw);
  CrRecordStep *second = cr_record_backward_add_step (bw);
  CrRecordGrad *in = cr_record_step_add_incoming (first);
  in->tensor = 3;
  CrRecordGrad *again = cr_record_step_add_incoming (second);
  again->tensor = 3;
  CrRecordGrad *other = cr_record_step_add_incoming (second);
  other->tensor = 4;
  for (int t = 3; t <= 4; t++)
    {
      CrRecordAccumulation *acc = cr_record_backward_add_root_accumulation (bw);
      acc->tensor = t;
    }

  g_autoptr (GArray) at_first = cr_record_step_root_sums (bw, first);
  g_autoptr (GArray) at_second = cr_record_step_root_sums (bw, second);
  g_assert_cmpuint (at_first->len, ==, 1);
  g_assert_cmpuint (g_array_index (at_first, guint, 0), ==, 0);
  /* Tensor 3's sum was told at the first step already. */
  g_assert_cmpuint (at_second->len, ==, 1);
  g_assert_cmpuint (g_array_index (at_second, guint, 0), ==, 1);

  CrRecordHookSummary did;
  g_assert_false (cr_record_step_hook_summary (first, &did));
  g_assert_false (did.tensor_hook || did.retain || did.changed || did.raised);
  CrRecordHookCall *retain = cr_record_step_add_hook (second);
  retain->kind = CR_RECORD_HOOK_RETAIN_GRAD;
  retain->after = scalar_snapshot (1.0);
  g_assert_true (cr_record_step_hook_summary (second, &did));
  g_assert_true (did.retain);
  /* retain_grad() keeps the gradient; it changes nothing. */
  g_assert_false (did.tensor_hook || did.changed || did.raised);
  CrRecordHookCall *hook = cr_record_step_add_hook (second);
  hook->kind = CR_RECORD_HOOK_TENSOR;
  hook->after = scalar_snapshot (2.0);
  g_assert_true (cr_record_step_hook_summary (second, &did));
  g_assert_true (did.retain && did.tensor_hook && did.changed);
  g_assert_false (did.raised);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record/constructors", test_constructors);
  g_test_add_func ("/record/grad-at", test_grad_at);
  g_test_add_func ("/record/saved-freed-at", test_saved_freed_at);
  g_test_add_func ("/record/op-ran-at", test_op_ran_at);
  g_test_add_func ("/record/snapshot-text", test_snapshot_text);
  g_test_add_func ("/record/step-queries", test_step_queries);
  return g_test_run ();
}
