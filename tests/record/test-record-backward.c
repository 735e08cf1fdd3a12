/* test-record-backward.c — the backward side of the run record, on small
 * scripts run through the interpreter: each backward call's steps with their
 * hooks (in PyTorch 1.13's order), incoming gradients after the hooks, local
 * gradients, products and the broadcast reduction, custom Function backward
 * calls, accumulation, AccumulateGrad's .grad before and after, saved
 * tensors freed, and failing backward calls. Every number was checked
 * against PyTorch 1.13 (/usr/bin/python3) running the same script.
 *
 * CR_TEST_DUMP=1 prints every backward call recorded. */
#include "cr-interp.h"
#include "record-test-util.h"
#include "cr-run-record-trace.h"

#include <string.h>

static const char *
snap_text (const CrTensorSnapshot *s)
{
  return s ? (cr_tensor_snapshot_get_text (s) ? cr_tensor_snapshot_get_text (s) : "(big)") : "None";
}

static void
dump (const CrRunRecord *record)
{
  if (!g_getenv ("CR_TEST_DUMP"))
    return;
  for (guint b = 0; b < record->backwards->len; b++)
    {
      const CrRecordBackward *bw = g_ptr_array_index (record->backwards, b);
      g_printerr ("backward %u: %s kind %d root %s retain %d create %d ok %d error %d\n", b,
                  bw->title, bw->kind, bw->root_name, bw->retain_graph, bw->create_graph,
                  bw->succeeded, bw->error);
      for (guint k = 0; k < bw->steps->len; k++)
        {
          const CrRecordStep *s = g_ptr_array_index (bw->steps, k);
          g_printerr ("  step %u %s (%s) op %d leaf %d%s custom %s:%d rule %s\n", s->index,
                      s->title, s->caption, s->op, s->leaf, s->failed ? " FAILED" : "",
                      s->custom_backward, s->custom_span.line, s->rule);
          for (guint i = 0; i < s->hooks->len; i++)
            {
              const CrRecordHookCall *h = g_ptr_array_index (s->hooks, i);
              g_printerr ("    hook %d %s line %d on %d: %s -> %s\n", h->kind, h->function,
                          h->span.line, h->tensor, snap_text (h->before), snap_text (h->after));
            }
          for (guint i = 0; i < s->incoming->len; i++)
            {
              const CrRecordGrad *g = g_ptr_array_index (s->incoming, i);
              g_printerr ("    in %s = %s\n", g->name, snap_text (g->value));
            }
          for (guint i = 0; i < s->inputs->len; i++)
            {
              const CrRecordStepInput *in = g_ptr_array_index (s->inputs, i);
              g_printerr ("    input %s (%d, op %d, leaf %d): %s local %s product %s reduce %d dims; "
                          "%s = %s\n", in->name, in->tensor, in->to_op, in->to_leaf, in->local_name,
                          snap_text (in->local), snap_text (in->product),
                          in->reduction ? in->reduction->n_dims : -1, in->outgoing.name,
                          snap_text (in->outgoing.value));
            }
          for (guint i = 0; i < s->accumulations->len; i++)
            {
              const CrRecordAccumulation *a = g_ptr_array_index (s->accumulations, i);
              g_printerr ("    %s += %s (sum %s)\n", a->name, snap_text (a->contribution),
                          snap_text (a->sum));
            }
          if (s->kind == CR_RECORD_STEP_ACCUMULATE)
            g_printerr ("    .grad %s -> %s\n", snap_text (s->grad_before), snap_text (s->grad_after));
        }
    }
  for (guint e = 0; e < record->errors->len; e++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, e);
      g_printerr ("error %s: %.40s… line %d op %d backward %d step %d tensor %d culprit %d\n",
                  err->type, err->message, err->span.line, err->op, err->backward, err->step,
                  err->tensor, err->culprit_span.line);
    }
}

static const CrRecordBackward *
backward_at (const CrRunRecord *record,
             guint              i)
{
  g_assert_cmpuint (i, <, record->backwards->len);
  return g_ptr_array_index (record->backwards, i);
}

static const CrRecordStep *
step_at (const CrRecordBackward *bw,
         guint                   i)
{
  g_assert_cmpuint (i, <, bw->steps->len);
  const CrRecordStep *step = g_ptr_array_index (bw->steps, i);
  g_assert_cmpuint (step->index, ==, i);
  return step;
}

static const CrRecordTensor *
tensor_at (const CrRunRecord *record,
           int                id)
{
  g_assert_cmpint (id, >=, 0);
  g_assert_cmpint (id, <, (int) record->tensors->len);
  return g_ptr_array_index (record->tensors, id);
}

static const CrRecordOp *
op_at (const CrRunRecord *record,
       int                id)
{
  g_assert_cmpint (id, >=, 0);
  g_assert_cmpint (id, <, (int) record->ops->len);
  return g_ptr_array_index (record->ops, id);
}

/* The snapshot's values are exactly expected (n of them). */
static void
assert_values (const CrTensorSnapshot *s,
               const double           *expected,
               guint                   n)
{
  g_assert_nonnull (s);
  g_assert_cmpint (s->numel, ==, n);
  g_assert_cmpint (s->n_values, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (s->values[i], expected[i], 1e-6);
}

#define ASSERT_VALUES(s, ...) \
  G_STMT_START { \
    const double expected_[] = { __VA_ARGS__ }; \
    assert_values ((s), expected_, G_N_ELEMENTS (expected_)); \
  } G_STMT_END

static void
assert_shape (const gint64 *shape,
              int           ndim,
              const char   *expected)
{
  GString *s = g_string_new ("(");
  for (int d = 0; d < ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, shape[d]);
  g_string_append_c (s, ')');
  g_assert_cmpstr (s->str, ==, expected);
  g_string_free (s, TRUE);
}

/* The hooks example (data/examples/14-hooks.py): y's hook sees [1, 1, 1]
 * and returns None; x's hook turns [2, 4, 6] into [20, 40, 60], which is
 * why x.grad is [20, 40, 60]. */
static void
test_hooks (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = x * x\n"
    "z = y.sum()\n"
    "\n"
    "\n"
    "def show(grad):\n"
    "    print('gradient reaching y:', grad)\n"
    "\n"
    "\n"
    "y.register_hook(show)\n"
    "x.register_hook(lambda grad: grad * 10)\n"
    "\n"
    "z.backward()\n", NULL);
  dump (record);
  g_assert_cmpuint (record->backwards->len, ==, 1);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_cmpstr (bw->title, ==, "z.backward() · line 14");
  g_assert_cmpint (bw->kind, ==, CR_RECORD_BACKWARD_CALL);
  g_assert_cmpstr (bw->root_name, ==, "z");
  g_assert_cmpint (bw->span.line, ==, 14);
  g_assert_cmpuint (bw->iteration, ==, 0);
  g_assert_true (bw->succeeded);
  g_assert_cmpint (bw->error, ==, -1);
  g_assert_false (bw->retain_graph);
  g_assert_cmpuint (bw->roots->len, ==, 1);
  g_assert_cmpstr (tensor_at (record, g_array_index (bw->roots, int, 0))->label, ==, "z");
  g_assert_cmpuint (bw->steps->len, ==, 3);

  const CrRecordStep *sum = step_at (bw, 0);
  g_assert_cmpstr (sum->title, ==, "SumBackward0");
  g_assert_cmpstr (sum->caption, ==, "z = y.sum(), line 4");
  g_assert_cmpuint (sum->hooks->len, ==, 0);
  g_assert_cmpuint (sum->incoming->len, ==, 1);
  const CrRecordGrad *in = g_ptr_array_index (sum->incoming, 0);
  g_assert_cmpstr (in->name, ==, "∂z/∂z");
  ASSERT_VALUES (in->value, 1);
  g_assert_nonnull (sum->rule);

  const CrRecordStep *mul = step_at (bw, 1);
  g_assert_cmpstr (mul->title, ==, "MulBackward0");
  g_assert_cmpint (mul->kind, ==, CR_RECORD_STEP_NODE);
  g_assert_cmpstr (op_at (record, mul->op)->grad_fn, ==, "MulBackward0");
  g_assert_cmpuint (mul->hooks->len, ==, 1);
  const CrRecordHookCall *show = g_ptr_array_index (mul->hooks, 0);
  g_assert_cmpint (show->kind, ==, CR_RECORD_HOOK_TENSOR);
  g_assert_cmpstr (show->function, ==, "show");
  g_assert_cmpint (show->span.line, ==, 7);
  g_assert_cmpstr (tensor_at (record, show->tensor)->label, ==, "y");
  ASSERT_VALUES (show->before, 1, 1, 1);
  g_assert_null (show->after);
  in = g_ptr_array_index (mul->incoming, 0);
  g_assert_cmpstr (in->name, ==, "∂z/∂y");
  ASSERT_VALUES (in->value, 1, 1, 1);
  g_assert_cmpuint (mul->inputs->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const CrRecordStepInput *input = g_ptr_array_index (mul->inputs, i);
      g_assert_cmpstr (input->name, ==, "x");
      g_assert_cmpstr (input->local_name, ==, "∂y/∂x");
      g_assert_cmpstr (input->outgoing.name, ==, "∂z/∂x");
      g_assert_cmpint (input->to_op, ==, -1);
      g_assert_cmpstr (tensor_at (record, input->to_leaf)->label, ==, "x");
      ASSERT_VALUES (input->local, 1, 2, 3);
      ASSERT_VALUES (input->product, 1, 2, 3);
      g_assert_null (input->reduction);
      ASSERT_VALUES (input->outgoing.value, 1, 2, 3);
    }
  /* x's second gradient meets the first in AccumulateGrad's buffer. */
  g_assert_cmpuint (mul->accumulations->len, ==, 1);
  const CrRecordAccumulation *acc = g_ptr_array_index (mul->accumulations, 0);
  g_assert_cmpstr (acc->name, ==, "∂z/∂x");
  g_assert_cmpint (acc->to_op, ==, -1);
  ASSERT_VALUES (acc->contribution, 1, 2, 3);
  ASSERT_VALUES (acc->sum, 2, 4, 6);

  const CrRecordStep *leaf = step_at (bw, 2);
  g_assert_cmpint (leaf->kind, ==, CR_RECORD_STEP_ACCUMULATE);
  g_assert_cmpstr (leaf->title, ==, "AccumulateGrad");
  g_assert_cmpstr (leaf->caption, ==, "x");
  g_assert_cmpstr (tensor_at (record, leaf->leaf)->label, ==, "x");
  g_assert_cmpuint (leaf->hooks->len, ==, 1);
  const CrRecordHookCall *times10 = g_ptr_array_index (leaf->hooks, 0);
  g_assert_cmpstr (times10->function, ==, "<lambda>");
  g_assert_cmpint (times10->span.line, ==, 12);
  ASSERT_VALUES (times10->before, 2, 4, 6);
  ASSERT_VALUES (times10->after, 20, 40, 60);
  in = g_ptr_array_index (leaf->incoming, 0);
  g_assert_cmpstr (in->name, ==, "∂z/∂x");
  ASSERT_VALUES (in->value, 20, 40, 60);
  g_assert_null (leaf->grad_before);
  ASSERT_VALUES (leaf->grad_after, 20, 40, 60);

  /* x*x saved x twice; the backward freed both after its step; sum saved
   * nothing. */
  const CrRecordOp *mul_op = op_at (record, mul->op);
  g_assert_cmpuint (mul_op->saved->len, ==, 2);
  for (guint k = 0; k < 2; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (mul_op->saved, k);
      g_assert_cmpint (saved->freed_backward, ==, 0);
      g_assert_cmpint (saved->freed_step, ==, 1);
    }
  g_assert_cmpuint (op_at (record, sum->op)->saved->len, ==, 0);
  g_assert_false (cr_run_record_saved_freed_at (record, mul->op, 0, 0, 0));
  g_assert_true (cr_run_record_saved_freed_at (record, mul->op, 0, 0, 1));
  g_assert_null (cr_run_record_grad_at (record, leaf->leaf, 0, 1));
  ASSERT_VALUES (cr_run_record_grad_at (record, leaf->leaf, 0, 2), 20, 40, 60);
}

/* y = (x * b).sum() with x 2×3 and b of 3: ∂y/∂b's product is 2×3, summed
 * over dim 0 to b's shape: [5, 7, 9]. */
static void
test_broadcast (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\n"
    "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = (x * b).sum()\n"
    "y.backward()\n", NULL);
  dump (record);
  const CrRecordBackward *bw = backward_at (record, 0);
  const CrRecordStep *mul = step_at (bw, 1);
  g_assert_cmpstr (mul->title, ==, "MulBackward0");
  const CrRecordGrad *in = g_ptr_array_index (mul->incoming, 0);
  g_assert_cmpstr (in->name, ==, "∂y/∂(x * b)");
  ASSERT_VALUES (in->value, 1, 1, 1, 1, 1, 1);

  const CrRecordStepInput *dx = g_ptr_array_index (mul->inputs, 0);
  g_assert_cmpstr (dx->name, ==, "x");
  g_assert_null (dx->reduction);
  ASSERT_VALUES (dx->outgoing.value, 1, 2, 3, 1, 2, 3);

  const CrRecordStepInput *db = g_ptr_array_index (mul->inputs, 1);
  g_assert_cmpstr (db->name, ==, "b");
  g_assert_cmpstr (db->local_name, ==, "∂(x * b)/∂b");
  ASSERT_VALUES (db->local, 1, 2, 3, 4, 5, 6);
  ASSERT_VALUES (db->product, 1, 2, 3, 4, 5, 6);
  assert_shape (db->product->shape, db->product->ndim, "(2, 3)");
  g_assert_nonnull (db->reduction);
  g_assert_cmpint (db->reduction->n_dims, ==, 1);
  g_assert_cmpint (db->reduction->dims[0], ==, 0);
  assert_shape (db->reduction->from_shape, db->reduction->from_ndim, "(2, 3)");
  assert_shape (db->reduction->to_shape, db->reduction->to_ndim, "(3)");
  ASSERT_VALUES (db->outgoing.value, 5, 7, 9);
}

/* A size-1 dim broadcast as well as a missing one: (2, 1) from (3, 2, 4)
 * sums dims 0 and 2. */
static void
test_broadcast_keepdim (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.ones(3, 2, 4, requires_grad=True)\n"
    "c = torch.tensor([[1.0], [2.0]], requires_grad=True)\n"
    "(x + c).sum().backward()\n", NULL);
  const CrRecordStep *add = step_at (backward_at (record, 0), 1);
  g_assert_cmpstr (add->title, ==, "AddBackward0");
  const CrRecordStepInput *dc = g_ptr_array_index (add->inputs, 1);
  g_assert_nonnull (dc->reduction);
  g_assert_cmpint (dc->reduction->n_dims, ==, 2);
  g_assert_cmpint (dc->reduction->dims[0], ==, 0);
  g_assert_cmpint (dc->reduction->dims[1], ==, 2);
  assert_shape (dc->reduction->to_shape, dc->reduction->to_ndim, "(2, 1)");
  ASSERT_VALUES (dc->outgoing.value, 12, 12);
}

/* retain_grad() registered before a hook runs first: b.grad is the
 * gradient before the hook added 1 (PyTorch 1.13: [1, 1]; a.grad [6, 6]). */
static void
test_retain_grad_order (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "b = a * 3\n"
    "b.retain_grad()\n"
    "b.register_hook(lambda g: g + 1)\n"
    "b.sum().backward()\n", NULL);
  dump (record);
  const CrRecordBackward *bw = backward_at (record, 0);
  const CrRecordStep *mul = step_at (bw, 1);
  g_assert_cmpuint (mul->hooks->len, ==, 2);
  const CrRecordHookCall *retain = g_ptr_array_index (mul->hooks, 0);
  g_assert_cmpint (retain->kind, ==, CR_RECORD_HOOK_RETAIN_GRAD);
  g_assert_cmpstr (tensor_at (record, retain->tensor)->label, ==, "b");
  ASSERT_VALUES (retain->before, 1, 1);
  ASSERT_VALUES (retain->after, 1, 1);
  const CrRecordHookCall *plus1 = g_ptr_array_index (mul->hooks, 1);
  g_assert_cmpint (plus1->kind, ==, CR_RECORD_HOOK_TENSOR);
  ASSERT_VALUES (plus1->before, 1, 1);
  ASSERT_VALUES (plus1->after, 2, 2);
  ASSERT_VALUES (((CrRecordGrad *) g_ptr_array_index (mul->incoming, 0))->value, 2, 2);
  ASSERT_VALUES (((CrRecordStepInput *) g_ptr_array_index (mul->inputs, 0))->outgoing.value, 6, 6);
  /* b.grad as of each step: None before its hook ran, then [1, 1]. */
  g_assert_null (cr_run_record_grad_at (record, retain->tensor, 0, 0));
  ASSERT_VALUES (cr_run_record_grad_at (record, retain->tensor, 0, 1), 1, 1);
}

/* A hook registered before retain_grad(): b.grad sees the hook's change. */
static void
test_hook_then_retain_grad (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = x * 2\n"
    "def times10(g):\n"
    "    return g * 10\n"
    "y.register_hook(times10)\n"
    "y.retain_grad()\n"
    "y.register_hook(print)\n"
    "y.sum().backward()\n", NULL);
  const CrRecordStep *mul = step_at (backward_at (record, 0), 1);
  g_assert_cmpuint (mul->hooks->len, ==, 3);
  const CrRecordHookCall *h = g_ptr_array_index (mul->hooks, 0);
  g_assert_cmpstr (h->function, ==, "times10");
  g_assert_cmpint (h->span.line, ==, 4);
  ASSERT_VALUES (h->after, 10, 10, 10);
  h = g_ptr_array_index (mul->hooks, 1);
  g_assert_cmpstr (h->function, ==, "print");
  g_assert_cmpint (h->span.line, ==, 0);
  ASSERT_VALUES (h->before, 10, 10, 10);
  g_assert_null (h->after);
  h = g_ptr_array_index (mul->hooks, 2);
  g_assert_cmpint (h->kind, ==, CR_RECORD_HOOK_RETAIN_GRAD);
  ASSERT_VALUES (h->after, 10, 10, 10);
}

/* The custom Function example (data/examples/13-custom-function.py). */
static void
test_custom_function (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "\n"
    "\n"
    "class MyReLU(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, input):\n"
    "        ctx.save_for_backward(input)\n"
    "        return input.clamp(min=0)\n"
    "\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_output):\n"
    "        input, = ctx.saved_tensors\n"
    "        grad_input = grad_output.clone()\n"
    "        grad_input[input < 0] = 0\n"
    "        return grad_input\n"
    "\n"
    "\n"
    "x = torch.tensor([-2.0, -0.5, 0.5, 1.0, 3.0], requires_grad=True)\n"
    "y = MyReLU.apply(x)\n"
    "loss = (y * y).sum()\n"
    "loss.backward()\n", NULL);
  dump (record);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_cmpuint (bw->steps->len, ==, 4);
  const CrRecordStep *relu = step_at (bw, 2);
  g_assert_cmpstr (relu->title, ==, "MyReLUBackward");
  g_assert_cmpstr (relu->custom_backward, ==, "MyReLU.backward");
  g_assert_cmpint (relu->custom_span.line, >=, 10);
  g_assert_cmpint (relu->custom_span.line, <=, 11);
  ASSERT_VALUES (((CrRecordGrad *) g_ptr_array_index (relu->incoming, 0))->value, 0, 0, 1, 2, 6);
  const CrRecordStepInput *dx = g_ptr_array_index (relu->inputs, 0);
  g_assert_cmpstr (dx->name, ==, "x");
  g_assert_null (dx->local);
  ASSERT_VALUES (dx->outgoing.value, 0, 0, 1, 2, 6);
  g_assert_null (step_at (bw, 1)->custom_backward);
  /* ctx.save_for_backward(input): one saved tensor, freed at step 2. */
  const CrRecordOp *op = op_at (record, relu->op);
  g_assert_cmpuint (op->saved->len, ==, 1);
  const CrRecordSaved *saved = g_ptr_array_index (op->saved, 0);
  g_assert_cmpint (saved->freed_backward, ==, 0);
  g_assert_cmpint (saved->freed_step, ==, 2);
}

/* Two backward calls into the same leaf: the second AccumulateGrad adds to
 * the first's .grad; retain_graph keeps the saved tensors. */
static void
test_accumulate_grad (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.tensor([1.0, -1.0], requires_grad=True)\n"
    "for i in range(2):\n"
    "    loss = (w * w).sum()\n"
    "    loss.backward(retain_graph=True)\n", NULL);
  dump (record);
  g_assert_cmpuint (record->backwards->len, ==, 2);
  const CrRecordBackward *first = backward_at (record, 0);
  const CrRecordBackward *second = backward_at (record, 1);
  g_assert_cmpstr (first->title, ==, "loss.backward(retain_graph=True) · line 5 · iteration 1");
  g_assert_cmpstr (second->title, ==, "loss.backward(retain_graph=True) · line 5 · iteration 2");
  g_assert_cmpuint (second->iteration, ==, 2);
  /* The root's label, iteration and all: ∂loss₂/∂w. */
  g_assert_cmpstr (first->root_name, ==, "loss₁");
  g_assert_cmpstr (second->root_name, ==, "loss₂");
  g_assert_cmpstr (((CrRecordGrad *) g_ptr_array_index (step_at (second, 0)->incoming, 0))->name,
                   ==, "∂loss₂/∂loss₂");
  g_assert_true (second->retain_graph);
  g_assert_cmpstr (step_at (second, 1)->caption, ==, "loss = (w * w).sum(), line 4 · iteration 2");
  const CrRecordStep *leaf1 = step_at (first, 2);
  g_assert_null (leaf1->grad_before);
  ASSERT_VALUES (leaf1->grad_after, 2, -2);
  const CrRecordStep *leaf2 = step_at (second, 2);
  ASSERT_VALUES (leaf2->grad_before, 2, -2);
  ASSERT_VALUES (leaf2->grad_after, 4, -4);
  const CrRecordOp *mul = op_at (record, step_at (first, 1)->op);
  for (guint k = 0; k < mul->saved->len; k++)
    g_assert_cmpint (((CrRecordSaved *) g_ptr_array_index (mul->saved, k))->freed_backward, ==, -1);
  ASSERT_VALUES (cr_run_record_grad_at (record, leaf2->leaf, 1, 1), 2, -2);
  ASSERT_VALUES (cr_run_record_grad_at (record, leaf2->leaf, 1, 2), 4, -4);
}

/* torch.autograd.grad: kind GRAD, no AccumulateGrad; create_graph. */
static void
test_autograd_grad (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor(3.0, requires_grad=True)\n"
    "y = x ** 3\n"
    "g, = torch.autograd.grad(y, x, create_graph=True)\n"
    "g.backward()\n", NULL);
  dump (record);
  g_assert_cmpuint (record->backwards->len, ==, 2);
  const CrRecordBackward *grad = backward_at (record, 0);
  g_assert_cmpint (grad->kind, ==, CR_RECORD_BACKWARD_GRAD);
  g_assert_true (grad->create_graph);
  g_assert_true (grad->retain_graph);
  g_assert_cmpuint (grad->steps->len, ==, 1);
  const CrRecordStep *pow = step_at (grad, 0);
  g_assert_cmpstr (pow->title, ==, "PowBackward0");
  ASSERT_VALUES (((CrRecordStepInput *) g_ptr_array_index (pow->inputs, 0))->outgoing.value, 27);
  /* The double backward: d(3x²)/dx = 6x = 18 reaches x.grad. */
  const CrRecordBackward *second = backward_at (record, 1);
  g_assert_cmpint (second->kind, ==, CR_RECORD_BACKWARD_CALL);
  g_assert_cmpstr (second->root_name, ==, "g");
  const CrRecordStep *last = step_at (second, second->steps->len - 1);
  g_assert_cmpint (last->kind, ==, CR_RECORD_STEP_ACCUMULATE);
  ASSERT_VALUES (last->grad_after, 18);
}

/* A second backward through a freed graph fails at the first node that
 * needs its saved tensors: MulBackward0, after SumBackward0 ran. */
static void
test_backward_twice (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "z = x * x\n"
    "w = z.sum()\n"
    "w.backward()\n"
    "w.backward()\n", &ok);
  dump (record);
  g_assert_false (ok);
  g_assert_cmpuint (record->backwards->len, ==, 2);
  g_assert_true (backward_at (record, 0)->succeeded);
  const CrRecordBackward *bw = backward_at (record, 1);
  g_assert_false (bw->succeeded);
  g_assert_cmpuint (bw->steps->len, ==, 2);
  g_assert_false (step_at (bw, 0)->failed);
  const CrRecordStep *mul = step_at (bw, 1);
  g_assert_true (mul->failed);
  g_assert_cmpstr (mul->title, ==, "MulBackward0");
  g_assert_cmpuint (mul->inputs->len, ==, 0);
  ASSERT_VALUES (((CrRecordGrad *) g_ptr_array_index (mul->incoming, 0))->value, 1, 1, 1);
  g_assert_cmpint (bw->error, >=, 0);
  g_assert_cmpuint (record->errors->len, ==, 1);
  const CrRecordError *err = g_ptr_array_index (record->errors, bw->error);
  g_assert_cmpstr (err->type, ==, "RuntimeError");
  g_assert_true (g_str_has_prefix (err->message, "Trying to backward through the graph a second time"));
  g_assert_cmpint (err->backward, ==, 1);
  g_assert_cmpint (err->step, ==, 1);
  g_assert_cmpint (err->op, ==, mul->op);
  g_assert_cmpint (err->span.line, ==, 6);
  /* Freed by the first call, at its MulBackward0 step. */
  const CrRecordSaved *saved = g_ptr_array_index (op_at (record, mul->op)->saved, 0);
  g_assert_cmpint (saved->freed_backward, ==, 0);
  g_assert_cmpint (saved->freed_step, ==, 1);
}

/* A saved result changed in place: ExpBackward0 fails; the error names the
 * line of add_. */
static void
test_inplace_error (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "y = x.exp()\n"
    "y.add_(1)\n"
    "y.sum().backward()\n", &ok);
  dump (record);
  g_assert_false (ok);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_false (bw->succeeded);
  const CrRecordStep *failed = step_at (bw, bw->steps->len - 1);
  g_assert_true (failed->failed);
  g_assert_cmpstr (failed->title, ==, "ExpBackward0");
  const CrRecordError *err = g_ptr_array_index (record->errors, bw->error);
  g_assert_true (strstr (err->message, "modified by an inplace operation") != NULL);
  g_assert_cmpint (err->op, ==, failed->op);
  g_assert_cmpint (err->step, ==, (int) failed->index);
  g_assert_cmpint (err->culprit_span.line, ==, 4);
  g_assert_cmpuint (record->errors->len, ==, 1);
}

/* A hook that returns a gradient of another size: PyTorch's message, the
 * hook's call on the failed step. */
static void
test_hook_shape_error (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "def bad(g):\n"
    "    return torch.ones(2)\n"
    "q = x * 3\n"
    "q.register_hook(bad)\n"
    "try:\n"
    "    q.sum().backward()\n"
    "except RuntimeError as e:\n"
    "    print(e)\n", &ok);
  dump (record);
  g_assert_true (ok);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_false (bw->succeeded);
  const CrRecordStep *mul = step_at (bw, 1);
  g_assert_true (mul->failed);
  g_assert_cmpstr (mul->title, ==, "MulBackward0");
  const CrRecordError *err = g_ptr_array_index (record->errors, bw->error);
  g_assert_cmpstr (err->message, ==, "hook 'bad' has changed the size of value");
  g_assert_cmpint (err->step, ==, 1);
  g_assert_cmpint (err->op, ==, mul->op);
}

/* A root that cannot start a backward: the error, no step. */
static void
test_root_error (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "(x * 2).backward()\n", &ok);
  g_assert_false (ok);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_false (bw->succeeded);
  g_assert_cmpuint (bw->steps->len, ==, 0);
  const CrRecordError *err = g_ptr_array_index (record->errors, bw->error);
  g_assert_cmpstr (err->message, ==, "grad can be implicitly created only for scalar outputs");
  g_assert_cmpint (err->step, ==, -1);
  g_assert_cmpuint (record->errors->len, ==, 1);
}

/* autograd.functional runs autograd.grad from library code: the call is
 * the script's statement; a module's backward hook machinery is library
 * code, with no span in the script. */
static void
test_library_calls (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "import torch.nn as nn\n"
    "def f(a):\n"
    "    return (a ** 2).sum()\n"
    "j = torch.autograd.functional.jacobian(f, torch.tensor([1.0, 2.0]))\n"
    "lin = nn.Linear(2, 1)\n"
    "lin.register_full_backward_hook(lambda m, gi, go: None)\n"
    "lin(torch.ones(1, 2, requires_grad=True)).sum().backward()\n", NULL);
  dump (record);
  g_assert_cmpuint (record->backwards->len, ==, 2);
  const CrRecordBackward *jac = backward_at (record, 0);
  g_assert_cmpint (jac->kind, ==, CR_RECORD_BACKWARD_GRAD);
  g_assert_cmpstr (jac->title, ==,
                   "j = torch.autograd.functional.jacobian(f, torch.tensor([1.0, 2.0])) · line 5");
  const CrRecordBackward *bw = backward_at (record, 1);
  gboolean seen = FALSE;
  for (guint k = 0; k < bw->steps->len; k++)
    {
      const CrRecordStep *step = step_at (bw, k);
      if (g_strcmp0 (step->title, "BackwardHookFunctionBackward") != 0)
        continue;
      seen = TRUE;
      g_assert_cmpstr (step->custom_backward, ==, "BackwardHookFunction.backward");
      g_assert_cmpint (step->custom_span.line, ==, 0);
    }
  g_assert_true (seen);
}

/* jacobian loops over the rows of a vector function's output in library
 * code: each of its autograd.grad calls is the script's line, in the
 * script's loop iteration, never the library's line or loop. */
static void
test_library_loop_calls (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "def g(a):\n"
    "    return a ** 2\n"
    "x = torch.tensor([1.0, 2.0, 3.0])\n"
    "for i in range(2):\n"
    "    J = torch.autograd.functional.jacobian(g, x)\n", NULL);
  g_assert_cmpuint (record->backwards->len, ==, 6);
  for (guint k = 0; k < record->backwards->len; k++)
    {
      const CrRecordBackward *b = backward_at (record, k);
      g_autofree char *title = g_strdup_printf ("J = torch.autograd.functional.jacobian(g, x) · line 6"
                                                " · iteration %u", k / 3 + 1);
      g_assert_cmpstr (b->title, ==, title);
      g_assert_cmpint (b->span.line, ==, 6);
      g_assert_cmpuint (b->iteration, ==, k / 3 + 1);
    }
}

/* A module's full backward hook: a MODULE hook call on the step of the
 * identity node that runs it, with grad_input before and after
 * (PyTorch 1.13: x.grad [[6, 8]]). */
static void
test_module_hook (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "import torch.nn as nn\n"
    "lin = nn.Linear(2, 1)\n"
    "with torch.no_grad():\n"
    "    lin.weight.copy_(torch.tensor([[3.0, 4.0]]))\n"
    "def double(module, grad_input, grad_output):\n"
    "    return (grad_input[0] * 2,)\n"
    "lin.register_full_backward_hook(double)\n"
    "x = torch.tensor([[1.0, 2.0]], requires_grad=True)\n"
    "lin(x).sum().backward()\n", NULL);
  dump (record);
  const CrRecordBackward *bw = backward_at (record, 0);
  const CrRecordHookCall *call = NULL;
  const CrRecordStep *step = NULL;
  for (guint k = 0; k < bw->steps->len && !call; k++)
    {
      step = step_at (bw, k);
      for (guint i = 0; i < step->hooks->len && !call; i++)
        call = g_ptr_array_index (step->hooks, i);
    }
  g_assert_nonnull (call);
  g_assert_cmpstr (step->title, ==, "BackwardHookFunctionBackward");
  g_assert_cmpint (call->kind, ==, CR_RECORD_HOOK_MODULE);
  g_assert_cmpstr (call->function, ==, "double");
  g_assert_cmpint (call->span.line, ==, 6);
  ASSERT_VALUES (call->before, 3, 4);
  ASSERT_VALUES (call->after, 6, 8);
  const CrRecordStep *last = step_at (bw, bw->steps->len - 1);
  g_assert_cmpstr (last->caption, ==, "x");
  ASSERT_VALUES (last->grad_after, 6, 8);
}

/* A module backward hook that raises: listed, raised, on the step that
 * failed (the hook's identity node's), called with [3, 4]. */
static void
test_module_hook_raised (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "import torch.nn as nn\n"
    "lin = nn.Linear(2, 1)\n"
    "with torch.no_grad():\n"
    "    lin.weight.copy_(torch.tensor([[3.0, 4.0]]))\n"
    "def guard(module, grad_input, grad_output):\n"
    "    raise ValueError('stop')\n"
    "lin.register_full_backward_hook(guard)\n"
    "x = torch.tensor([[1.0, 2.0]], requires_grad=True)\n"
    "lin(x).sum().backward()\n", &ok);
  dump (record);
  g_assert_false (ok);
  const CrRecordBackward *bw = backward_at (record, 0);
  const CrRecordStep *last = step_at (bw, bw->steps->len - 1);
  g_assert_true (last->failed);
  g_assert_cmpstr (last->title, ==, "BackwardHookFunctionBackward");
  g_assert_cmpuint (last->hooks->len, ==, 1);
  const CrRecordHookCall *call = g_ptr_array_index (last->hooks, 0);
  g_assert_cmpint (call->kind, ==, CR_RECORD_HOOK_MODULE);
  g_assert_cmpstr (call->function, ==, "guard");
  g_assert_true (call->raised);
  ASSERT_VALUES (call->before, 3, 4);
  g_assert_null (call->after);
  g_assert_cmpstr (((CrRecordError *) g_ptr_array_index (record->errors, bw->error))->type,
                   ==, "ValueError");
}

/* A leaf's hook that raises: AccumulateGrad's step failed, .grad as it
 * was (the first backward's [2, 4]). */
static void
test_leaf_hook_error (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "(x * x).sum().backward()\n"
    "def boom(g):\n"
    "    raise ValueError('no')\n"
    "x.register_hook(boom)\n"
    "(x * 3).sum().backward()\n", &ok);
  dump (record);
  g_assert_false (ok);
  const CrRecordBackward *bw = backward_at (record, 1);
  g_assert_false (bw->succeeded);
  const CrRecordStep *leaf = step_at (bw, bw->steps->len - 1);
  g_assert_true (leaf->failed);
  g_assert_cmpint (leaf->kind, ==, CR_RECORD_STEP_ACCUMULATE);
  /* The hook that raised is listed: called with [3, 3], it returned nothing. */
  g_assert_cmpuint (leaf->hooks->len, ==, 1);
  const CrRecordHookCall *hook = g_ptr_array_index (leaf->hooks, 0);
  g_assert_true (hook->raised);
  g_assert_cmpstr (hook->function, ==, "boom");
  g_assert_cmpint (hook->tensor, ==, leaf->leaf);
  ASSERT_VALUES (hook->before, 3, 3);
  g_assert_null (hook->after);
  ASSERT_VALUES (((CrRecordGrad *) g_ptr_array_index (leaf->incoming, 0))->value, 3, 3);
  ASSERT_VALUES (leaf->grad_after, 2, 4);
  ASSERT_VALUES (cr_run_record_grad_at (record, leaf->leaf, 1, (int) leaf->index), 2, 4);
  const CrRecordError *err = g_ptr_array_index (record->errors, bw->error);
  g_assert_cmpstr (err->type, ==, "ValueError");
  g_assert_cmpstr (err->message, ==, "no");
  g_assert_cmpint (err->span.line, ==, 5);   /* the hook's raise */
  g_assert_cmpint (err->tensor, ==, leaf->leaf);
  g_assert_cmpint (err->op, ==, -1);
  g_assert_cmpuint (record->errors->len, ==, 1);
}

/* A node whose hook raised: its step failed, and as of that step the node
 * has not run its backward (cr_run_record_op_ran_at), while the one before
 * it has. */
static void
test_failed_step_not_run (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 3\n"
    "def check(g):\n"
    "    raise ValueError('too large')\n"
    "y.register_hook(check)\n"
    "y.sum().backward()\n", &ok);
  dump (record);
  g_assert_false (ok);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_cmpuint (bw->steps->len, ==, 2);
  const CrRecordStep *sum = step_at (bw, 0), *mul = step_at (bw, 1);
  g_assert_cmpstr (mul->title, ==, "MulBackward0");
  g_assert_true (mul->failed);
  g_assert_true (((CrRecordHookCall *) g_ptr_array_index (mul->hooks, 0))->raised);
  g_assert_true (cr_run_record_op_ran_at (record, sum->op, 0, 1));
  g_assert_false (cr_run_record_op_ran_at (record, mul->op, 0, 1));
}

/* Several roots: one call, the roots in order, each root's gradient coming
 * in at its node; ∂L, since no single root is the numerator. */
static void
test_several_roots (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "a = x * 2\n"
    "b = x * 3\n"
    "torch.autograd.backward([a, b], [torch.ones(2), torch.ones(2)])\n", NULL);
  dump (record);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_cmpstr (bw->root_name, ==, "L");
  g_assert_cmpuint (bw->roots->len, ==, 2);
  g_assert_cmpstr (tensor_at (record, g_array_index (bw->roots, int, 0))->label, ==, "a");
  g_assert_cmpstr (tensor_at (record, g_array_index (bw->roots, int, 1))->label, ==, "b");
  /* PyTorch runs b's node first (the higher sequence number). */
  const CrRecordStep *first = step_at (bw, 0);
  g_assert_cmpstr (((CrRecordGrad *) g_ptr_array_index (first->incoming, 0))->name, ==, "∂L/∂b");
  const CrRecordStep *second = step_at (bw, 1);
  const CrRecordAccumulation *acc = g_ptr_array_index (second->accumulations, 0);
  ASSERT_VALUES (acc->sum, 5, 5);
  ASSERT_VALUES (step_at (bw, 2)->grad_after, 5, 5);
  /* Each root's gradient; no two met before a step. */
  g_assert_cmpuint (bw->root_grads->len, ==, 2);
  ASSERT_VALUES (((CrRecordGrad *) g_ptr_array_index (bw->root_grads, 0))->value, 1, 1);
  g_assert_cmpuint (bw->root_accumulations->len, ==, 0);
}

/* The same root twice (and a scalar root with its implicit 1): their
 * gradients add up before any step, into what the first step (and a hook
 * on the tensor) gets; --trace-backward says so on that step. */
static void
test_same_root_twice (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 2\n"
    "s = x.sum()\n"
    "torch.autograd.backward([y, y, s], [torch.ones(2), torch.full((2,), 3.0), None])\n", NULL);
  dump (record);
  const CrRecordBackward *bw = backward_at (record, 0);
  g_assert_cmpuint (bw->root_grads->len, ==, 3);
  const CrRecordGrad *second = g_ptr_array_index (bw->root_grads, 1);
  g_assert_cmpstr (second->name, ==, "∂L/∂y");
  ASSERT_VALUES (second->value, 3, 3);
  const CrRecordGrad *implicit = g_ptr_array_index (bw->root_grads, 2);
  g_assert_cmpstr (implicit->name, ==, "∂L/∂s");
  g_assert_cmpint (implicit->value->ndim, ==, 0);
  g_assert_cmpuint (bw->root_accumulations->len, ==, 1);
  const CrRecordAccumulation *met = g_ptr_array_index (bw->root_accumulations, 0);
  g_assert_cmpstr (met->name, ==, "∂L/∂y");
  ASSERT_VALUES (met->contribution, 3, 3);
  ASSERT_VALUES (met->sum, 4, 4);
  g_assert_cmpint (met->to_op, ==, tensor_at (record, met->tensor)->op);
  g_autofree char *trace = cr_run_record_trace_backward (record, 0);
  /* As the card tells it, on the step that takes the sum in (y's). */
  g_assert_nonnull (strstr (trace, "  MulBackward0\n  y = x * 2 · line 3\n\n"
                                   "  Roots added up\n    ∂L/∂y = [1, 1]\n"
                                   "    ∂L/∂y += [3, 3] → sum so far [4, 4]\n"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-backward/hooks", test_hooks);
  g_test_add_func ("/record-backward/broadcast", test_broadcast);
  g_test_add_func ("/record-backward/broadcast-keepdim", test_broadcast_keepdim);
  g_test_add_func ("/record-backward/retain-grad-order", test_retain_grad_order);
  g_test_add_func ("/record-backward/hook-then-retain-grad", test_hook_then_retain_grad);
  g_test_add_func ("/record-backward/custom-function", test_custom_function);
  g_test_add_func ("/record-backward/accumulate-grad", test_accumulate_grad);
  g_test_add_func ("/record-backward/autograd-grad", test_autograd_grad);
  g_test_add_func ("/record-backward/backward-twice", test_backward_twice);
  g_test_add_func ("/record-backward/inplace-error", test_inplace_error);
  g_test_add_func ("/record-backward/hook-shape-error", test_hook_shape_error);
  g_test_add_func ("/record-backward/root-error", test_root_error);
  g_test_add_func ("/record-backward/library-calls", test_library_calls);
  g_test_add_func ("/record-backward/library-loop-calls", test_library_loop_calls);
  g_test_add_func ("/record-backward/module-hook", test_module_hook);
  g_test_add_func ("/record-backward/leaf-hook-error", test_leaf_hook_error);
  g_test_add_func ("/record-backward/several-roots", test_several_roots);
  g_test_add_func ("/record-backward/same-root-twice", test_same_root_twice);
  g_test_add_func ("/record-backward/failed-step-not-run", test_failed_step_not_run);
  g_test_add_func ("/record-backward/module-hook-raised", test_module_hook_raised);
  return g_test_run ();
}
