/* test-record-text.c — the record's items in words (cr-record-text.h), as the
 * step card, the graph's badges and the picker write them; headless, so the
 * ASan build runs it. */
#include "cr-record-text.h"

#include <string.h>

static CrTensorSnapshot *
vector (int           n,
        const double *values)
{
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->ndim = 1;
  s->shape[0] = n;
  s->numel = n;
  s->n_values = n;
  s->values = g_memdup2 (values, sizeof (double) * (gsize) n);
  s->min = s->max = values[0];
  for (int i = 1; i < n; i++)
    {
      s->min = MIN (s->min, values[i]);
      s->max = MAX (s->max, values[i]);
    }
  s->dtype = g_strdup ("torch.float32");
  s->device = g_strdup ("cpu");
  return s;
}

static void
test_shape (void)
{
  const gint64 shape[] = { 2, 3 };
  g_autofree char *matrix = cr_record_shape_text (shape, 2);
  g_assert_cmpstr (matrix, ==, "2×3");
  g_autofree char *scalar = cr_record_shape_text (shape, 0);
  g_assert_cmpstr (scalar, ==, "scalar");
}

static void
test_reduction (void)
{
  CrRecordReduction r = { .n_dims = 1, .dims = { 0 }, .from_ndim = 2, .from_shape = { 2, 3 },
                          .to_ndim = 1, .to_shape = { 3 } };
  g_autofree char *one = cr_record_reduction_text (&r, "b");
  g_assert_cmpstr (one, ==, "summed over dim 0 to b's shape 3");
  r.n_dims = 2;
  r.dims[1] = 1;
  r.to_ndim = 2;
  r.to_shape[0] = 1;
  r.to_shape[1] = 1;
  g_autofree char *two = cr_record_reduction_text (&r, NULL);
  g_assert_cmpstr (two, ==, "summed over dims 0 and 1 to the input's shape 1×1");
  /* A 0-d input: no "shape scalar". */
  r.to_ndim = 0;
  g_autofree char *every = cr_record_reduction_text (&r, "s");
  g_assert_cmpstr (every, ==, "summed over every dim to the scalar s");
  g_autofree char *unnamed = cr_record_reduction_text (&r, NULL);
  g_assert_cmpstr (unnamed, ==, "summed over every dim to a scalar");
  r.n_dims = 1;
  r.from_ndim = 1;
  g_autofree char *one_dim = cr_record_reduction_text (&r, "s");
  g_assert_cmpstr (one_dim, ==, "summed over dim 0 to the scalar s");
}

static void
test_hook_title (void)
{
  CrRecordHookCall hook = { .kind = CR_RECORD_HOOK_TENSOR, .function = (char *) "double_it",
                            .span = { .line = 4 } };
  g_autofree char *tensor = cr_record_hook_title (&hook, "y");
  g_assert_cmpstr (tensor, ==, "hook double_it (line 4)");
  hook.kind = CR_RECORD_HOOK_RETAIN_GRAD;
  g_autofree char *retain = cr_record_hook_title (&hook, "y₃");
  g_assert_cmpstr (retain, ==, "retain_grad: y₃.grad");
  hook.kind = CR_RECORD_HOOK_MODULE;
  hook.span.line = 0;
  g_autofree char *module = cr_record_hook_title (&hook, NULL);
  g_assert_cmpstr (module, ==, "module hook double_it");
}

static void
test_value_brief (void)
{
  const double v[] = { 2, 4, 6.5, -0.125 };
  CrTensorSnapshot *three = vector (3, v), *four = vector (4, v);
  g_autofree char *short_text = cr_record_value_brief (three, 3);
  g_assert_cmpstr (short_text, ==, "[2, 4, 6.5]");
  g_autofree char *range = cr_record_value_brief (four, 3);
  g_assert_cmpstr (range, ==, "4 in [-0.125, 6.5]");
  g_autofree char *none = cr_record_value_brief (NULL, 3);
  g_assert_cmpstr (none, ==, "None");
  cr_tensor_snapshot_free (three);
  cr_tensor_snapshot_free (four);
}

static void
test_picker_title (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("mlp.py", NULL);
  CrRecordBackward *first = cr_run_record_add_backward (r);
  first->title = g_strdup ("loss.backward() · line 23");
  first->iteration = 1;
  CrRecordBackward *second = cr_run_record_add_backward (r);
  second->title = g_strdup ("loss.backward() · line 23 · iteration 2");
  second->iteration = 2;
  CrRecordBackward *grad = cr_run_record_add_backward (r);
  grad->kind = CR_RECORD_BACKWARD_GRAD;
  grad->span.line = 30;
  g_autofree char *t1 = cr_record_backward_picker_title (r, 0);
  g_assert_cmpstr (t1, ==, "#1 · loss.backward() · line 23 · iteration 1");
  /* A title that says its iteration already is not told twice. */
  g_autofree char *t2 = cr_record_backward_picker_title (r, 1);
  g_assert_cmpstr (t2, ==, "#2 · loss.backward() · line 23 · iteration 2");
  g_autofree char *t3 = cr_record_backward_picker_title (r, 2);
  g_assert_cmpstr (t3, ==, "#3 · autograd.grad() · line 30");
  g_autofree char *past = cr_record_backward_picker_title (r, 7);
  g_assert_cmpstr (past, ==, "#8");
}

static void
test_labels_and_errors (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("loop.py", NULL);
  CrRecordTensor *t = cr_run_record_add_tensor (r);
  t->name = g_strdup ("y");
  t->label = g_strdup ("y₃");
  CrRecordTensor *anonymous = cr_run_record_add_tensor (r);
  (void) anonymous;
  g_assert_cmpstr (cr_record_tensor_label (r, 0, "?"), ==, "y₃");
  g_assert_cmpstr (cr_record_tensor_label (r, 1, "?"), ==, "?");
  g_assert_cmpstr (cr_record_tensor_label (r, 9, "?"), ==, "?");
  g_assert_null (cr_record_backward_error (r, -1));
  CrRecordError *forward = cr_run_record_add_error (r);
  CrRecordError *second = cr_run_record_add_error (r);
  second->backward = 1;
  g_assert_true (cr_record_backward_error (r, -1) == forward);
  g_assert_true (cr_record_backward_error (r, 1) == second);
  g_assert_null (cr_record_backward_error (r, 0));
}

/* Where in nested loops: every loop's iteration, outermost first. */
static void
test_iteration_text (void)
{
  const guint path[] = { 2, 3, 11 };
  g_assert_null (cr_record_iteration_text (path, 0));
  g_autofree char *one = cr_record_iteration_text (path, 1);
  g_assert_cmpstr (one, ==, "iteration 2");
  g_autofree char *three = cr_record_iteration_text (path, 3);
  g_assert_cmpstr (three, ==, "iteration 2,3,11");
}

static CrRecordTensor *
labelled (CrRunRecord *r,
          const char  *label)
{
  CrRecordTensor *t = cr_run_record_add_tensor (r);
  t->label = g_strdup (label);
  return t;
}

/* An op's caption in a loop: the name bound and the inputs named by the
 * script carry their iterations; attributes, other names and an op
 * outside loops are left as written. */
static void
test_op_caption (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("loop.py", NULL);
  CrRecordTensor *w = labelled (r, "w");
  CrRecordTensor *y2 = labelled (r, "y₂");
  CrRecordTensor *why = labelled (r, "why₂");
  CrRecordOp *op = cr_run_record_add_op (r);
  op->caption = g_strdup ("y = (y * w).sum() + why.y + my_y(y)");
  op->loop_depth = 1;
  op->loop_path[0] = 3;
  int inputs[] = { (int) y2->id, (int) w->id, (int) why->id };
  g_array_append_vals (op->inputs, inputs, G_N_ELEMENTS (inputs));
  g_autofree char *looped = cr_record_op_caption (r, 0);
  g_assert_cmpstr (looped, ==, "y₃ = (y₂ * w).sum() + why₂.y + my_y(y₂)");

  /* Nested loops: every loop's iteration; y == y is no assignment. */
  CrRecordOp *nested = cr_run_record_add_op (r);
  nested->caption = g_strdup ("h == y");
  nested->loop_depth = 2;
  nested->loop_path[0] = 2;
  nested->loop_path[1] = 11;
  g_autofree char *compare = cr_record_op_caption (r, 1);
  g_assert_cmpstr (compare, ==, "h == y");
  g_free (nested->caption);
  nested->caption = g_strdup ("h = h + 1");
  g_autofree char *bound = cr_record_op_caption (r, 1);
  g_assert_cmpstr (bound, ==, "h₂,₁₁ = h + 1");

  /* Outside loops, and without a caption. */
  CrRecordOp *plain = cr_run_record_add_op (r);
  plain->caption = g_strdup ("y = y * w");
  g_array_append_vals (plain->inputs, inputs, 2);
  g_autofree char *as_is = cr_record_op_caption (r, 2);
  g_assert_cmpstr (as_is, ==, "y = y * w");
  cr_run_record_add_op (r);
  g_assert_null (cr_record_op_caption (r, 3));
  g_assert_null (cr_record_op_caption (r, 9));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-text/shape", test_shape);
  g_test_add_func ("/record-text/reduction", test_reduction);
  g_test_add_func ("/record-text/hook-title", test_hook_title);
  g_test_add_func ("/record-text/value-brief", test_value_brief);
  g_test_add_func ("/record-text/picker-title", test_picker_title);
  g_test_add_func ("/record-text/labels-and-errors", test_labels_and_errors);
  g_test_add_func ("/record-text/iteration", test_iteration_text);
  g_test_add_func ("/record-text/op-caption", test_op_caption);
  return g_test_run ();
}
