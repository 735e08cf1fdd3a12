/* test-cards-record.c — the step card and the inspector on run records made
 * by hand, one for each explanation the record lets them give: the
 * broadcast reduction on its own line, hooks and retain_grad writes, a
 * custom Function's backward, names with their iteration, the picker's
 * numbered rows, and the inspector's state as of the step (no .grad before
 * the step that writes it, "freed" only where a saved tensor was freed,
 * "modified in place" on an in-place error's culprit). Runs under xvfb-run;
 * the graph's badges are tested headless in test-graph-badges.c. */
#include "cr-config.h"
#include "cr-step-card.h"
#include "cr-inspector.h"
#include "cr-record-text.h"
#include "ui-test-gui.h"

#include <string.h>

/* ---- records by hand ------------------------------------------------------ */

static CrTensorSnapshot *
snap (int           ndim,
      const gint64 *shape,
      const double *values)
{
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->ndim = ndim;
  s->numel = 1;
  for (int i = 0; i < ndim; i++)
    {
      s->shape[i] = shape[i];
      s->numel *= shape[i];
    }
  s->dtype = g_strdup ("torch.float32");
  s->device = g_strdup ("cpu");
  s->n_values = s->numel;
  s->values = g_memdup2 (values, sizeof (double) * (gsize) s->numel);
  s->min = s->max = values[0];
  for (gint64 i = 0; i < s->numel; i++)
    {
      s->min = MIN (s->min, values[i]);
      s->max = MAX (s->max, values[i]);
      s->mean += values[i] / (double) s->numel;
    }
  return s;
}

static CrTensorSnapshot *
vec3 (double a, double b, double c)
{
  const gint64 shape[] = { 3 };
  const double v[] = { a, b, c };
  return snap (1, shape, v);
}

static CrTensorSnapshot *
scalar (double v)
{
  return snap (0, NULL, &v);
}

static CrRecordTensor *
add_tensor (CrRunRecord          *record,
            const char           *label,
            CrRecordTensorOrigin  origin,
            int                   ndim,
            const gint64         *shape)
{
  CrRecordTensor *t = cr_run_record_add_tensor (record);
  t->name = g_strdup (label);
  t->label = g_strdup (label);
  t->origin = origin;
  t->ndim = ndim;
  for (int i = 0; i < ndim; i++)
    t->shape[i] = shape[i];
  t->dtype = g_strdup ("torch.float32");
  t->device = g_strdup ("cpu");
  t->requires_grad = origin == CR_RECORD_TENSOR_LEAF || origin == CR_RECORD_TENSOR_RESULT;
  return t;
}

static CrRecordOp *
add_op (CrRunRecord *record,
        const char  *grad_fn,
        const char  *caption,
        int          line)
{
  CrRecordOp *op = cr_run_record_add_op (record);
  op->grad_fn = g_strdup (grad_fn);
  op->caption = g_strdup (caption);
  op->span.line = line;
  return op;
}

static CrRecordGrad *
add_incoming (CrRecordStep           *step,
              const char             *name,
              int                     tensor,
              CrTensorSnapshot       *value)
{
  CrRecordGrad *g = cr_record_step_add_incoming (step);
  g->name = g_strdup (name);
  g->tensor = tensor;
  g->value = value;
  return g;
}

/* y = (x * b).sum() with x 2×3 and b of 3: b's gradient is the product
 * summed over dim 0. */
static CrRunRecord *
broadcast_record (void)
{
  CrRunRecord *r = cr_run_record_new ("bc.py", NULL);
  const gint64 x_shape[] = { 2, 3 }, b_shape[] = { 3 };
  add_tensor (r, "x", CR_RECORD_TENSOR_LEAF, 2, x_shape);
  add_tensor (r, "b", CR_RECORD_TENSOR_LEAF, 1, b_shape);
  CrRecordTensor *xb = add_tensor (r, "(x * b)", CR_RECORD_TENSOR_RESULT, 2, x_shape);
  CrRecordTensor *y = add_tensor (r, "y", CR_RECORD_TENSOR_RESULT, 0, NULL);
  CrRecordOp *mul = add_op (r, "MulBackward0", "y = (x * b).sum()", 4);
  mul->symbol = g_strdup ("×");
  xb->op = 0;
  CrRecordOp *sum = add_op (r, "SumBackward0", "y = (x * b).sum()", 4);
  y->op = 1;
  int xb_id = (int) xb->id, y_id = (int) y->id;
  g_array_append_val (mul->outputs, xb_id);
  g_array_append_val (sum->outputs, y_id);

  CrRecordBackward *bw = cr_run_record_add_backward (r);
  bw->title = g_strdup ("y.backward() · line 5");
  bw->root_name = g_strdup ("y");
  bw->succeeded = TRUE;

  CrRecordStep *s0 = cr_record_backward_add_step (bw);
  s0->kind = CR_RECORD_STEP_NODE;
  s0->op = 1;
  s0->title = g_strdup ("SumBackward0");
  add_incoming (s0, "∂y/∂y", 3, scalar (1));

  CrRecordStep *s1 = cr_record_backward_add_step (bw);
  s1->kind = CR_RECORD_STEP_NODE;
  s1->op = 0;
  s1->title = g_strdup ("MulBackward0");
  s1->caption = g_strdup ("y = (x * b).sum(), line 4");
  const double ones[] = { 1, 1, 1, 1, 1, 1 }, xv[] = { 1, 2, 3, 4, 5, 6 };
  const double bv[] = { 1, 2, 3, 1, 2, 3 };
  add_incoming (s1, "∂y/∂(x * b)", 2, snap (2, x_shape, ones));
  CrRecordStepInput *ix = cr_record_step_add_input (s1);
  ix->tensor = 0;
  ix->to_leaf = 0;
  ix->name = g_strdup ("x");
  ix->local_name = g_strdup ("∂(x * b)/∂x");
  ix->local = snap (2, x_shape, bv);
  ix->product = snap (2, x_shape, bv);
  ix->outgoing.name = g_strdup ("∂y/∂x");
  ix->outgoing.tensor = 0;
  ix->outgoing.value = snap (2, x_shape, bv);
  CrRecordStepInput *ib = cr_record_step_add_input (s1);
  ib->tensor = 1;
  ib->to_leaf = 1;
  ib->name = g_strdup ("b");
  ib->local_name = g_strdup ("∂(x * b)/∂b");
  ib->local = snap (2, x_shape, xv);
  ib->product = snap (2, x_shape, xv);
  ib->reduction = g_new0 (CrRecordReduction, 1);
  ib->reduction->n_dims = 1;
  ib->reduction->dims[0] = 0;
  ib->reduction->from_ndim = 2;
  ib->reduction->from_shape[0] = 2;
  ib->reduction->from_shape[1] = 3;
  ib->reduction->to_ndim = 1;
  ib->reduction->to_shape[0] = 3;
  ib->outgoing.name = g_strdup ("∂y/∂b");
  ib->outgoing.tensor = 1;
  ib->outgoing.value = vec3 (5, 7, 9);

  CrRecordStep *s2 = cr_record_backward_add_step (bw);
  s2->kind = CR_RECORD_STEP_ACCUMULATE;
  s2->leaf = 1;
  s2->title = g_strdup ("AccumulateGrad");
  s2->caption = g_strdup ("b");
  add_incoming (s2, "∂y/∂b", 1, vec3 (5, 7, 9));
  s2->grad_after = vec3 (5, 7, 9);
  return r;
}

/* ---- reading widgets back ------------------------------------------------ */

static void
collect (GtkWidget *widget,
         GString   *out)
{
  const char *name = g_object_get_data (G_OBJECT (widget), "cr-text");
  if (name)
    g_string_append_printf (out, "%s\n", name);
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect (c, out);
}

static char *
texts (GtkWidget *widget)
{
  GString *out = g_string_new (NULL);
  collect (widget, out);
  return g_string_free (out, FALSE);
}

/* Where whole line `line` starts in all, or -1. */
static gssize
line_at (const char *all,
         const char *line)
{
  g_autofree char *needle = g_strdup_printf ("\n%s\n", line);
  g_autofree char *hay = g_strdup_printf ("\n%s", all);
  const char *at = strstr (hay, needle);
  return at ? at - hay : -1;
}

#define assert_line(all, line) \
  G_STMT_START { if (line_at ((all), (line)) < 0) \
    g_error ("no line \"%s\" in:\n%s", (line), (all)); } G_STMT_END
#define assert_no_line(all, line) \
  G_STMT_START { if (line_at ((all), (line)) >= 0) \
    g_error ("unexpected line \"%s\" in:\n%s", (line), (all)); } G_STMT_END

static GtkWidget *
card_at (const CrRunRecord *record,
         int                backward,
         int                step)
{
  GtkWidget *card = g_object_ref_sink (cr_step_card_new ());
  cr_step_card_show_record_step (CR_STEP_CARD (card), record, backward, step);
  return card;
}

/* ---- the step card ---------------------------------------------------------- */

static void
test_broadcast (void)
{
  g_autoptr (CrRunRecord) r = broadcast_record ();
  GtkWidget *card = card_at (r, 0, 1);
  g_autofree char *all = texts (card);
  assert_line (all, "MulBackward0");
  assert_line (all, "y = (x * b).sum() · line 4");
  /* The product (b's local gradient is x: [[1,2,3],[4,5,6]]) comes first,
   * then the sum over the broadcast dim, on a line of its own, to [5, 7, 9]. */
  gssize product = line_at (all, "6.");
  gssize sum = line_at (all, "summed over dim 0 to b's shape 3");
  gssize result = line_at (all, "9.");
  g_assert_cmpint (product, >=, 0);
  g_assert_cmpint (sum, >, product);
  g_assert_cmpint (result, >, sum);
  assert_line (all, "Σ");
  g_assert_nonnull (strstr (all, "b was broadcast to 2×3"));
  /* x was not broadcast: one reduction line only. */
  g_assert_null (strstr (all, "to x's shape"));
  g_object_unref (card);
}

/* b given twice as a root (torch.autograd.backward([b, b], ...)): the
 * first step that takes b's gradient in says how the roots added up, with
 * the first root's gradient; a later step taking it in does not again. */
static void
test_roots_added_up (void)
{
  g_autoptr (CrRunRecord) r = broadcast_record ();
  CrRecordBackward *bw = g_ptr_array_index (r->backwards, 0);
  for (int k = 0; k < 2; k++)
    {
      CrRecordGrad *g = cr_record_backward_add_root_grad (bw);
      g->name = g_strdup ("∂L/∂b");
      g->tensor = 1;
      g->value = k ? vec3 (4, 4, 4) : vec3 (1, 2, 3);
    }
  CrRecordAccumulation *met = cr_record_backward_add_root_accumulation (bw);
  met->name = g_strdup ("∂L/∂b");
  met->tensor = 1;
  met->contribution = vec3 (4, 4, 4);
  met->sum = vec3 (5, 6, 7);
  GtkWidget *card = card_at (r, 0, 2);
  g_autofree char *all = texts (card);
  gssize section = line_at (all, "Roots added up");
  g_assert_cmpint (section, >=, 0);
  /* In order after the title: the first root's [1, 2, 3], += [4, 4, 4],
   * the sum so far, then the incoming gradient. */
  const char *rest = all + section;
  gssize first = line_at (rest, "1.");
  gssize plus = line_at (rest, "+=");
  gssize sum = line_at (rest, "sum so far");
  g_assert_cmpint (first, >, 0);
  g_assert_cmpint (plus, >, first);
  g_assert_cmpint (sum, >, plus);
  g_assert_cmpint (line_at (rest, "Incoming gradient"), >, sum);
  g_object_unref (card);
  /* Not on a step that takes in another tensor. */
  card = card_at (r, 0, 0);
  g_free (all);
  all = texts (card);
  assert_no_line (all, "Roots added up");
  g_object_unref (card);
}

static void
test_reduction_text (void)
{
  CrRecordReduction r = { .n_dims = 2, .dims = { 0, 1 }, .from_ndim = 2,
                          .from_shape = { 4, 3 }, .to_ndim = 2, .to_shape = { 1, 1 } };
  g_autofree char *two = cr_record_reduction_text (&r, "w");
  g_assert_cmpstr (two, ==, "summed over dims 0 and 1 to w's shape 1×1");
  r.n_dims = 3;
  r.dims[2] = 2;
  r.to_ndim = 0;
  g_autofree char *three = cr_record_reduction_text (&r, NULL);
  g_assert_cmpstr (three, ==, "summed over every dim to a scalar");
}

/* The hooks example: y's hook multiplies its gradient by 10; z keeps its
 * gradient with retain_grad(). */
static void
test_hooks (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("hooks.py", NULL);
  const gint64 n3[] = { 3 };
  add_tensor (r, "x", CR_RECORD_TENSOR_LEAF, 1, n3);
  add_tensor (r, "y", CR_RECORD_TENSOR_RESULT, 1, n3)->op = 0;
  add_op (r, "MulBackward0", "y = x * 2", 3);
  CrRecordBackward *bw = cr_run_record_add_backward (r);
  bw->succeeded = TRUE;
  bw->root_name = g_strdup ("L");
  CrRecordStep *s = cr_record_backward_add_step (bw);
  s->kind = CR_RECORD_STEP_NODE;
  s->op = 0;
  s->title = g_strdup ("MulBackward0");
  CrRecordHookCall *h = cr_record_step_add_hook (s);
  h->kind = CR_RECORD_HOOK_TENSOR;
  h->tensor = 1;
  h->function = g_strdup ("double_it");
  h->span.line = 4;
  h->before = vec3 (2, 4, 6);
  h->after = vec3 (20, 40, 60);
  CrRecordHookCall *keep = cr_record_step_add_hook (s);
  keep->kind = CR_RECORD_HOOK_RETAIN_GRAD;
  keep->tensor = 1;
  keep->before = vec3 (20, 40, 60);
  keep->after = vec3 (20, 40, 60);
  add_incoming (s, "∂L/∂y", 1, vec3 (20, 40, 60));

  GtkWidget *card = card_at (r, 0, 0);
  g_autofree char *all = texts (card);
  /* "hook double_it (line 4): [2, 4, 6] → [20, 40, 60]", before the
   * incoming gradient it explains. */
  gssize hook = line_at (all, "hook double_it (line 4):");
  g_assert_cmpint (hook, >=, 0);
  g_assert_cmpint (line_at (all, "2."), >, hook);
  g_assert_cmpint (line_at (all, "→"), >, hook);
  g_assert_cmpint (line_at (all, "60."), >, hook);
  g_assert_cmpint (line_at (all, "Incoming gradient"), >, hook);
  assert_line (all, "y.grad");
  assert_line (all, "It multiplied the gradient by 10.");
  g_assert_nonnull (strstr (all, "register_hook()"));
  g_assert_nonnull (strstr (all, "retain_grad()"));
  g_object_unref (card);

  /* A hook that returned None: the gradient goes on unchanged, and says so. */
  g_clear_pointer (&h->after, cr_tensor_snapshot_free);
  card = card_at (r, 0, 0);
  g_autofree char *none = texts (card);
  assert_line (none, "None (unchanged)");
  g_object_unref (card);

  g_autofree char *title = cr_record_hook_title (h, "y");
  g_assert_cmpstr (title, ==, "hook double_it (line 4)");
  g_autofree char *retain = cr_record_hook_title (keep, "y");
  g_assert_cmpstr (retain, ==, "retain_grad: y.grad");
}

static void
test_custom_function (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("relu.py", NULL);
  const gint64 n3[] = { 3 };
  add_tensor (r, "x", CR_RECORD_TENSOR_LEAF, 1, n3);
  add_tensor (r, "y", CR_RECORD_TENSOR_RESULT, 1, n3)->op = 0;
  CrRecordOp *op = add_op (r, "MyReLUBackward", "y = MyReLU.apply(x)", 14);
  op->custom_function = g_strdup ("MyReLU");
  CrRecordBackward *bw = cr_run_record_add_backward (r);
  bw->succeeded = TRUE;
  CrRecordStep *s = cr_record_backward_add_step (bw);
  s->kind = CR_RECORD_STEP_NODE;
  s->op = 0;
  s->title = g_strdup ("MyReLUBackward");
  s->custom_backward = g_strdup ("MyReLU.backward");
  s->custom_span.line = 9;
  add_incoming (s, "∂L/∂y", 1, vec3 (1, 1, 1));
  CrRecordStepInput *in = cr_record_step_add_input (s);
  in->tensor = 0;
  in->to_leaf = 0;
  in->name = g_strdup ("x");
  in->outgoing.name = g_strdup ("∂L/∂x");
  in->outgoing.value = vec3 (0, 1, 1);

  GtkWidget *card = card_at (r, 0, 0);
  g_autofree char *all = texts (card);
  assert_line (all, "Your backward");
  assert_line (all, "MyReLU.backward · line 9");
  assert_line (all, "grad_output");
  assert_line (all, "returns");
  assert_line (all, "∂L/∂x");
  g_assert_nonnull (strstr (all, "autograd.Function"));
  g_object_unref (card);
}

/* A name rebound in a loop: the record's labels carry the iteration. */
static void
test_iteration_names (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("loop.py", NULL);
  add_tensor (r, "w", CR_RECORD_TENSOR_LEAF, 0, NULL);
  CrRecordTensor *y3 = add_tensor (r, "y₃", CR_RECORD_TENSOR_RESULT, 0, NULL);
  y3->iteration = 3;
  y3->op = 0;
  CrRecordOp *op = add_op (r, "MulBackward0", "y = y * w", 5);
  op->iteration = 3;
  for (guint i = 1; i <= 3; i++)
    {
      CrRecordBackward *bw = cr_run_record_add_backward (r);
      bw->title = g_strdup ("loss.backward() · line 23");
      bw->iteration = i;
      bw->succeeded = TRUE;
    }
  CrRecordBackward *bw = g_ptr_array_index (r->backwards, 2);
  CrRecordStep *s = cr_record_backward_add_step (bw);
  s->kind = CR_RECORD_STEP_NODE;
  s->op = 0;
  s->title = g_strdup ("MulBackward0");
  s->caption = g_strdup ("y = y * w, line 5");
  add_incoming (s, "∂L/∂y₃", 1, scalar (2));

  GtkWidget *card = card_at (r, 2, 0);
  g_autofree char *all = texts (card);
  assert_line (all, "y = y * w · line 5 · iteration 3");
  assert_line (all, "∂L/∂y₃");
  g_object_unref (card);

  /* The picker: numbered rows with the iteration, not identical ones. */
  g_autofree char *third = cr_record_backward_picker_title (r, 2);
  g_assert_cmpstr (third, ==, "#3 · loss.backward() · line 23 · iteration 3");
  g_autofree char *first = cr_record_backward_picker_title (r, 0);
  g_assert_cmpstr (first, ==, "#1 · loss.backward() · line 23 · iteration 1");
  /* The intro names the call the same way. */
  card = card_at (r, 2, -1);
  g_autofree char *intro = texts (card);
  assert_line (intro, "#3 · loss.backward() · line 23 · iteration 3");
  g_object_unref (card);
}

static void
test_failed_backward (void)
{
  g_autoptr (CrRunRecord) r = broadcast_record ();
  CrRecordBackward *bw = g_ptr_array_index (r->backwards, 0);
  bw->succeeded = FALSE;
  CrRecordError *e = cr_run_record_add_error (r);
  e->type = g_strdup ("RuntimeError");
  e->message = g_strdup ("one of the variables needed for gradient computation has been "
                         "modified by an inplace operation");
  e->op = 0;
  e->backward = 0;
  e->step = 2;
  e->culprit_span.line = 6;
  bw->error = 0;
  GtkWidget *card = card_at (r, 0, 2);
  g_autofree char *all = texts (card);
  g_assert_nonnull (strstr (all, "RuntimeError: one of the variables"));
  g_assert_nonnull (strstr (all, "modified in place at line 6"));
  g_assert_nonnull (strstr (all, "It failed at MulBackward0 (line 4)"));
  g_object_unref (card);

  card = card_at (r, 0, -1);
  g_autofree char *intro = texts (card);
  g_assert_nonnull (strstr (intro, "stopped with an error after 3 steps"));
  g_object_unref (card);
}

/* A second backward through a freed graph: the card says which call freed
 * the saved tensors. */
static void
test_second_backward (void)
{
  g_autoptr (CrRunRecord) r = broadcast_record ();
  CrRecordOp *mul = g_ptr_array_index (r->ops, 0);
  CrRecordSaved *saved = cr_record_op_add_saved (mul);
  saved->name = g_strdup ("self");
  saved->freed_backward = 0;
  saved->freed_step = 1;
  CrRecordBackward *first = g_ptr_array_index (r->backwards, 0);
  first->span.line = 5;
  CrRecordBackward *second = cr_run_record_add_backward (r);
  second->title = g_strdup ("y.backward() · line 6");
  second->span.line = 6;
  second->error = 0;
  CrRecordStep *s0 = cr_record_backward_add_step (second);
  s0->kind = CR_RECORD_STEP_NODE;
  s0->op = 1;
  s0->title = g_strdup ("SumBackward0");
  CrRecordError *e = cr_run_record_add_error (r);
  e->type = g_strdup ("RuntimeError");
  e->message = g_strdup ("Trying to backward through the graph a second time");
  e->op = 0;
  e->backward = 1;
  e->step = 1;
  GtkWidget *card = card_at (r, 1, 0);
  g_autofree char *all = texts (card);
  g_assert_nonnull (strstr (all, "Trying to backward through the graph a second time"));
  assert_line (all, "Its saved tensors were freed by backward call #1 (line 5): pass "
                    "retain_graph=True to that call to keep them.");
  g_object_unref (card);
}

/* A shape error before any backward call: the card says the run stopped,
 * where and why, instead of "this script never calls .backward()". */
static void
test_forward_error (void)
{
  g_autoptr (CrRunRecord) r = cr_run_record_new ("shape.py", NULL);
  CrRecordError *e = cr_run_record_add_error (r);
  e->type = g_strdup ("RuntimeError");
  e->message = g_strdup ("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)");
  e->span.line = 5;
  GtkWidget *card = card_at (r, -1, -1);
  g_autofree char *all = texts (card);
  assert_line (all, "Stopped before backward");
  g_assert_nonnull (strstr (all, "error at line 5, before any backward call"));
  assert_line (all, "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)");
  assert_no_line (all, "No backward pass");
  g_object_unref (card);

  /* Without an error: no backward pass, as before. */
  g_autoptr (CrRunRecord) ok = cr_run_record_new ("fwd.py", NULL);
  card = card_at (ok, -1, -1);
  g_autofree char *fwd = texts (card);
  assert_line (fwd, "No backward pass");
  g_object_unref (card);
}

static void
test_value_brief (void)
{
  CrTensorSnapshot *v = vec3 (2, 4, 6);
  g_autofree char *brief = cr_record_value_brief (v, 4);
  g_assert_cmpstr (brief, ==, "[2, 4, 6]");
  g_autofree char *range = cr_record_value_brief (v, 2);
  g_assert_cmpstr (range, ==, "3 in [2, 6]");
  CrTensorSnapshot *s = scalar (-4.5);
  g_autofree char *one = cr_record_value_brief (s, 4);
  g_assert_cmpstr (one, ==, "-4.5");
  g_autofree char *none = cr_record_value_brief (NULL, 4);
  g_assert_cmpstr (none, ==, "None");
  cr_tensor_snapshot_free (v);
  cr_tensor_snapshot_free (s);
}

/* ---- the inspector, as of the step ------------------------------------------- */

static void
test_inspector_at_step (void)
{
  g_autoptr (CrRunRecord) r = broadcast_record ();
  /* MulBackward0 saved x and b; backward freed x's copy after step 2 (index
   * 1); b's was changed in place at line 6 after it was saved. */
  CrRecordOp *mul = g_ptr_array_index (r->ops, 0);
  const gint64 x_shape[] = { 2, 3 }, b_shape[] = { 3 };
  CrRecordSaved *sx = cr_record_op_add_saved (mul);
  sx->name = g_strdup ("self");
  sx->tensor = 0;
  sx->ndim = 2;
  memcpy (sx->shape, x_shape, sizeof x_shape);
  sx->freed_backward = 0;
  sx->freed_step = 1;
  CrRecordSaved *sb = cr_record_op_add_saved (mul);
  sb->name = g_strdup ("other");
  sb->tensor = 1;
  sb->ndim = 1;
  memcpy (sb->shape, b_shape, sizeof b_shape);
  sb->freed_backward = 0;
  sb->freed_step = 1;
  sb->modified_span.line = 6;

  g_autoptr (CrGraphModel) model = cr_graph_model_new ();
  model->record = cr_run_record_ref (r);
  model->backward = 0;
  CrGraphNode *leaf = cr_graph_model_add_node (model, CR_GRAPH_NODE_LEAF, "b");
  leaf->tensor = 1;
  CrGraphNode *mul_node = cr_graph_model_add_node (model, CR_GRAPH_NODE_OP, "MulBackward0");
  mul_node->op = 0;
  mul_node->step = 1;
  CrGraphNode *sum_node = cr_graph_model_add_node (model, CR_GRAPH_NODE_OP, "SumBackward0");
  sum_node->op = 1;
  sum_node->step = 0;

  GtkWidget *inspector = g_object_ref_sink (cr_inspector_new ());
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, (int) leaf->id);
  /* Before backward: b.grad is None, and the inspector does not tell its value. */
  g_autofree char *before = texts (inspector);
  assert_line (before, "None so far: backward writes it at step 3");
  assert_no_line (before, "9.");
  cr_inspector_set_step (CR_INSPECTOR (inspector), 2);
  g_autofree char *after = texts (inspector);
  assert_line (after, "as of step 3, which wrote it");
  assert_line (after, "9.");
  assert_line (after, ".is_leaf");
  assert_line (after, "True");

  /* The op at step 1 (before it ran): nothing freed yet, but the in-place
   * culprit is marked as such, never as "freed". */
  cr_inspector_set_step (CR_INSPECTOR (inspector), 0);
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, (int) mul_node->id);
  g_autofree char *op_before = texts (inspector);
  assert_no_line (op_before, "freed");
  assert_line (op_before, "modified in place (line 6)");
  assert_line (op_before, "Backward runs it at step 2");
  g_assert_null (strstr (op_before, "reached it"));
  cr_inspector_set_step (CR_INSPECTOR (inspector), 1);
  g_autofree char *op_after = texts (inspector);
  assert_line (op_after, "freed");
  assert_line (op_after, "modified in place (line 6)");
  assert_line (op_after, "Backward ran it at step 2");
  /* The gradient (x * b) received, though it keeps no .grad. */
  assert_line (op_after, "∂y/∂(x * b), reached it at step 2 (not kept in .grad)");

  /* An op that saved nothing is never "freed". */
  cr_inspector_set_step (CR_INSPECTOR (inspector), 2);
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, (int) sum_node->id);
  g_autofree char *sum = texts (inspector);
  assert_no_line (sum, "freed");
  g_assert_nonnull (strstr (sum, "needs no saved tensors"));

  /* An error naming the op shows on it. */
  CrRecordError *e = cr_run_record_add_error (r);
  e->type = g_strdup ("RuntimeError");
  e->message = g_strdup ("one of the variables needed for gradient computation has been "
                         "modified by an inplace operation");
  e->op = 0;
  e->backward = 0;
  e->culprit_span.line = 6;
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, (int) mul_node->id);
  g_autofree char *err = texts (inspector);
  assert_line (err, "Error");
  g_assert_nonnull (strstr (err, "RuntimeError: one of the variables"));
  assert_line (err, "a tensor it saved was modified in place at line 6");
  g_object_unref (inspector);
}

/* A scalar leaf's paths to the loss, written out, and their sum equal to
 * its .grad; a tensor leaf's for the element chosen (the first). */
static void
test_inspector_paths (void)
{
  g_autoptr (CrGraphModel) model = cr_ui_test_model_from_script (
    "import torch\n"
    "a = torch.tensor(2.0, requires_grad=True)\n"
    "b = torch.tensor(-3.0, requires_grad=True)\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "c = a * b\n"
    "d = c + a\n"
    "e = d * c + a.sin() + (w * c).sum()\n"
    "e.backward()\n", "paths.py");
  const CrGraphNode *a = NULL, *w = NULL;
  for (guint i = 0; i < model->nodes->len; i++)
    {
      const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
      if (node->kind == CR_GRAPH_NODE_LEAF && g_strcmp0 (node->title, "a") == 0)
        a = node;
      if (node->kind == CR_GRAPH_NODE_LEAF && g_strcmp0 (node->title, "w") == 0)
        w = node;
    }
  g_assert_nonnull (a);
  g_assert_nonnull (w);
  GtkWidget *inspector = g_object_ref_sink (cr_inspector_new ());
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, (int) a->id);
  g_autofree char *text = texts (inspector);
  assert_line (text, "Paths to the loss");
  /* a → c → (w * c) → ... twice (one per element of w), with the others. */
  assert_line (text, "Sum of the 6 paths");
  g_assert_nonnull (strstr (text, "= a.grad once this backward ran"));
  assert_line (text, "a → (a.sin()) → (d * c + a.sin()) → e");
  cr_inspector_show_node (CR_INSPECTOR (inspector), model, (int) w->id);
  g_autofree char *tensor_text = texts (inspector);
  /* A tensor leaf: an index per dimension, and its first element's paths. */
  assert_line (tensor_text, "Element");
  g_assert_nonnull (strstr (tensor_text, "= w.grad[0] once this backward ran"));
  g_object_unref (inspector);
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);
  g_test_add_func ("/cards-record/broadcast", test_broadcast);
  g_test_add_func ("/cards-record/reduction-text", test_reduction_text);
  g_test_add_func ("/cards-record/roots-added-up", test_roots_added_up);
  g_test_add_func ("/cards-record/hooks", test_hooks);
  g_test_add_func ("/cards-record/custom-function", test_custom_function);
  g_test_add_func ("/cards-record/iteration-names", test_iteration_names);
  g_test_add_func ("/cards-record/failed-backward", test_failed_backward);
  g_test_add_func ("/cards-record/value-brief", test_value_brief);
  g_test_add_func ("/cards-record/forward-error", test_forward_error);
  g_test_add_func ("/cards-record/second-backward", test_second_backward);
  g_test_add_func ("/cards-record/inspector-at-step", test_inspector_at_step);
  g_test_add_func ("/cards-record/inspector-paths", test_inspector_paths);
  return g_test_run ();
}
