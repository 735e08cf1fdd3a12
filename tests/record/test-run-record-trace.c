/* test-run-record-trace.c — --trace-backward's text from a hand-built run
 * record, each step as the step card tells it (CrStepText): the chain rule
 * with its numbers, the sum back to a broadcast input's shape, hooks and
 * what they returned, a retain_grad write, a custom backward, a leaf's
 * .grad, a gradient added to one already there, a step that raised, and a
 * call that failed before its first step. The same text from real runs is checked by
 * tests/app/test-runner (trace-backward, trace-scalar, trace-broadcast). */
#include "cr-run-record-trace.h"

#include <math.h>
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
  s->dtype = g_strdup ("torch.float32");
  s->device = g_strdup ("cpu");
  s->min = s->max = s->mean = s->std = NAN;
  return s;
}

static CrTensorSnapshot *
matrix_2x3 (const double *values)
{
  CrTensorSnapshot *s = vector (6, values);
  s->ndim = 2;
  s->shape[0] = 2;
  s->shape[1] = 3;
  return s;
}

static CrRecordTensor *
named_tensor (CrRunRecord *record,
              const char  *name)
{
  CrRecordTensor *t = cr_run_record_add_tensor (record);
  t->name = g_strdup (name);
  t->label = g_strdup (name);
  return t;
}

/* y = (x * b).sum() with x 2×3 and b of 3, b hooked twice. */
static CrRunRecord *
broadcast_record (void)
{
  CrRunRecord *record = cr_run_record_new ("bcast.py",
                                           "import torch\n"
                                           "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])\n"
                                           "b = torch.ones(3, requires_grad=True)\n"
                                           "y = (x * b).sum()\n"
                                           "y.backward()\n");
  named_tensor (record, "x");
  CrRecordTensor *b = named_tensor (record, "b");
  static const double ones6[] = { 1, 1, 1, 1, 1, 1 }, x6[] = { 1, 2, 3, 4, 5, 6 },
                      sums[] = { 5, 7, 9 }, tens[] = { 50, 70, 90 };
  CrRecordBackward *call = cr_run_record_add_backward (record);
  call->span = (CrSpan) { 5, 1, 5, 13 };
  call->succeeded = TRUE;

  CrRecordStep *mul = cr_record_backward_add_step (call);
  mul->kind = CR_RECORD_STEP_NODE;
  mul->title = g_strdup ("MulBackward0");
  mul->caption = g_strdup ("y = (x * b).sum(), line 4");
  CrRecordGrad *in = cr_record_step_add_incoming (mul);
  in->name = g_strdup ("∂y/∂(x * b)");
  in->value = matrix_2x3 (ones6);
  CrRecordStepInput *to_b = cr_record_step_add_input (mul);
  to_b->tensor = (int) b->id;
  to_b->name = g_strdup ("b");
  to_b->local_name = g_strdup ("∂(x * b)/∂b");
  to_b->local = matrix_2x3 (x6);
  to_b->product = matrix_2x3 (x6);
  to_b->reduction = g_new0 (CrRecordReduction, 1);
  to_b->reduction->n_dims = 1;
  to_b->reduction->from_ndim = 2;
  to_b->reduction->from_shape[0] = 2;
  to_b->reduction->from_shape[1] = 3;
  to_b->reduction->to_ndim = 1;
  to_b->reduction->to_shape[0] = 3;
  to_b->outgoing.name = g_strdup ("∂y/∂b");
  to_b->outgoing.value = vector (3, sums);

  CrRecordStep *acc = cr_record_backward_add_step (call);
  acc->index = 1;
  acc->kind = CR_RECORD_STEP_ACCUMULATE;
  acc->leaf = (int) b->id;
  acc->title = g_strdup ("AccumulateGrad");
  acc->caption = g_strdup ("b");
  CrRecordHookCall *show = cr_record_step_add_hook (acc);
  show->kind = CR_RECORD_HOOK_TENSOR;
  show->tensor = (int) b->id;
  show->function = g_strdup ("show");
  show->span = (CrSpan) { 3, 1, 4, 1 };
  show->before = vector (3, sums);
  CrRecordHookCall *scale = cr_record_step_add_hook (acc);
  scale->kind = CR_RECORD_HOOK_TENSOR;
  scale->tensor = (int) b->id;
  scale->function = g_strdup ("<lambda>");
  scale->before = vector (3, sums);
  scale->after = vector (3, tens);
  CrRecordGrad *got = cr_record_step_add_incoming (acc);
  got->name = g_strdup ("∂y/∂b");
  got->value = vector (3, tens);
  acc->grad_after = vector (3, tens);
  return record;
}

static void
test_trace_broadcast_and_hooks (void)
{
  g_autoptr (CrRunRecord) record = broadcast_record ();
  g_autofree char *text = cr_run_record_trace_backward (record, 0);
  g_assert_cmpstr (text, ==,
    "backward #1: y.backward() at line 5\n"
    "\n"
    "  Backward 1 of 2\n"
    "  MulBackward0\n"
    "  y = (x * b).sum() · line 4\n"
    "\n"
    "  Incoming gradient\n"
    "    ∂y/∂(x * b) = [[1, 1, 1], [1, 1, 1]]\n"
    "\n"
    "  Local gradient\n"
    "    ∂(x * b)/∂b = [[1, 2, 3], [4, 5, 6]]\n"
    "\n"
    "  Sent on\n"
    "    ∂y/∂b = ∂y/∂(x * b) × ∂(x * b)/∂b\n"
    "          = [[1, 1, 1], [1, 1, 1]] × [[1, 2, 3], [4, 5, 6]]\n"
    "          = [[1, 2, 3], [4, 5, 6]]\n"
    "    Σ summed over dim 0 to b's shape 3 = [5, 7, 9]\n"
    "  × is elementwise here: each entry of the incoming gradient times the entry of the local gradient in the same place.\n"
    "  b was broadcast to 2×3 in the forward pass, so each of its entries was used several times: its gradient adds up the products of all those uses.\n"
    "\n"
    "  +=\n"
    "  Backward 2 of 2\n"
    "  AccumulateGrad\n"
    "  b\n"
    "\n"
    "  Hooks\n"
    "    hook show (line 3): [5, 7, 9] → None (unchanged)\n"
    "    hook <lambda>: [5, 7, 9] → [50, 70, 90]\n"
    "  It multiplied the gradient by 10.\n"
    "  A hook registered with register_hook() ran on the gradient before this step used it: what it returned replaced the gradient.\n"
    "\n"
    "  Incoming gradient\n"
    "    ∂y/∂b = [50, 70, 90]\n"
    "\n"
    "  b.grad\n"
    "    b.grad: None → [50, 70, 90]\n"
    "  AccumulateGrad stores the incoming gradient in the leaf's .grad: b.grad was None.\n");
  /* No such call: nothing. */
  g_autofree char *none = cr_run_record_trace_backward (record, 1);
  g_assert_cmpstr (none, ==, "");
}

static void
test_trace_custom_retain_accumulate_failed (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new ("f.py", "z.backward()\n");
  CrRecordTensor *h = named_tensor (record, "h");
  static const double one[] = { 1 }, two[] = { 2 }, three[] = { 3 };
  CrRecordError *error = cr_run_record_add_error (record);
  error->type = g_strdup ("RuntimeError");
  CrRecordBackward *call = cr_run_record_add_backward (record);
  call->span = (CrSpan) { 1, 1, 1, 13 };
  call->error = 0;

  CrRecordStep *custom = cr_record_backward_add_step (call);
  custom->title = g_strdup ("MyFnBackward");
  custom->custom_backward = g_strdup ("MyFn.backward");
  custom->custom_span = (CrSpan) { 7, 5, 9, 1 };
  CrRecordHookCall *retain = cr_record_step_add_hook (custom);
  retain->kind = CR_RECORD_HOOK_RETAIN_GRAD;
  retain->tensor = (int) h->id;
  retain->before = vector (1, one);
  retain->after = vector (1, one);
  CrRecordGrad *in = cr_record_step_add_incoming (custom);
  in->name = g_strdup ("∂z/∂h");
  in->value = vector (1, one);
  CrRecordStepInput *to_x = cr_record_step_add_input (custom);
  to_x->outgoing.name = g_strdup ("∂z/∂x");
  to_x->outgoing.value = vector (1, two);
  CrRecordStepInput *unused = cr_record_step_add_input (custom);
  unused->outgoing.name = g_strdup ("∂z/∂c");   /* no gradient: not shown */
  CrRecordAccumulation *sum = cr_record_step_add_accumulation (custom);
  sum->name = g_strdup ("∂z/∂x");
  sum->contribution = vector (1, two);
  sum->sum = vector (1, three);

  CrRecordStep *failing = cr_record_backward_add_step (call);
  failing->index = 1;
  failing->title = g_strdup ("MulBackward0");
  failing->failed = TRUE;

  g_autofree char *text = cr_run_record_trace_backward (record, 0);
  g_assert_cmpstr (text, ==,
    "backward #1: z.backward() at line 1\n"
    "\n"
    "  Backward 1 of 2\n"
    "  MyFnBackward\n"
    "\n"
    "  Retained gradient\n"
    "    h.grad = [1]\n"
    "  retain_grad() was called on this non-leaf tensor, so backward keeps its gradient in .grad.\n"
    "\n"
    "  Incoming gradient\n"
    "    ∂z/∂h = [1]\n"
    "\n"
    "  Your backward\n"
    "    MyFn.backward · line 7\n"
    "    grad_output = [1]\n"
    "    returns [2], None\n"
    "  Backward called the backward() of your autograd.Function: it got the incoming gradient as grad_output and returned one gradient per input of forward().\n"
    "\n"
    "  Sent on\n"
    "    ∂z/∂x = [2]\n"
    "    ∂z/∂c = None\n"
    "  This input needs no gradient.\n"
    "\n"
    "  Accumulated\n"
    "    ∂z/∂x += [2] → sum so far [3]\n"
    "  Gradient reaches this tensor along more than one path; the contributions add up.\n"
    "\n"
    "  Backward 2 of 2\n"
    "  MulBackward0\n"
    "\n"
    "  The backward call stopped with an error after this step.\n"
    "    RuntimeError: \n");
}

/* Values are written as the card writes them (cr_record_value_brief): a
 * small one whole, a big one or one whose numbers were not kept by its
 * shape and range. */
static void
test_trace_values (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new (NULL, NULL);
  CrRecordBackward *call = cr_run_record_add_backward (record);
  call->succeeded = TRUE;
  CrRecordStep *step = cr_record_backward_add_step (call);
  step->title = g_strdup ("SumBackward0");
  static const double v[] = { 1.5, -2 };
  CrRecordGrad *a = cr_record_step_add_incoming (step);
  a->name = g_strdup ("∂L/∂a");
  a->value = vector (2, v);
  g_free (a->value->dtype);
  a->value->dtype = g_strdup ("torch.float64");
  g_free (a->value->device);
  a->value->device = g_strdup ("cuda:0");
  CrRecordGrad *b = cr_record_step_add_incoming (step);
  b->name = g_strdup ("∂L/∂b");
  b->value = vector (2, v);
  b->value->shape[0] = 5000;
  b->value->numel = 5000;
  b->value->mean = 0.25;
  b->value->std = 1;
  b->value->min = -2;
  b->value->max = 1.5;
  CrRecordGrad *c = cr_record_step_add_incoming (step);
  c->name = g_strdup ("∂L/∂c");
  /* Past the record's value budget: the text of a small tensor, every
   * value of a constant one. */
  static const double w[] = { 1, 2, 3 };
  CrRecordGrad *d = cr_record_step_add_incoming (step);
  d->name = g_strdup ("∂L/∂d");
  d->value = vector (3, w);
  d->value->n_values = 0;
  d->value->text = g_strdup ("[1., 2., 3.]");
  CrRecordGrad *e = cr_record_step_add_incoming (step);
  e->name = g_strdup ("∂L/∂e");
  e->value = vector (3, w);
  e->value->n_values = 0;
  e->value->min = e->value->max = 1;

  g_autofree char *text = cr_run_record_trace_backward (record, 0);
  g_assert_cmpstr (text, ==,
    "backward #1\n"
    "\n"
    "  Backward 1 of 1\n"
    "  SumBackward0\n"
    "\n"
    "  Incoming gradients\n"
    "    ∂L/∂a = [1.5, -2]\n"
    "    ∂L/∂b = 5000 in [-2, 1.5]\n"
    "    ∂L/∂c = None\n"
    "    ∂L/∂d = 3\n"
    "    ∂L/∂e = 3 in [1, 1]\n");
}

/* A call that failed before any step ran (a non-scalar root without a
 * gradient): its error, as the card's error section says it. */
static void
test_trace_failed_before_steps (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new ("f.py", "y.backward()\n");
  CrRecordError *error = cr_run_record_add_error (record);
  error->type = g_strdup ("RuntimeError");
  error->message = g_strdup ("grad can be implicitly created only for scalar outputs");
  CrRecordBackward *call = cr_run_record_add_backward (record);
  call->span = (CrSpan) { 1, 1, 1, 13 };
  call->error = 0;
  g_autofree char *text = cr_run_record_trace_backward (record, 0);
  g_assert_cmpstr (text, ==,
    "backward #1: y.backward() at line 1\n"
    "\n"
    "  The backward call stopped with an error before its first step.\n"
    "    RuntimeError: grad can be implicitly created only for scalar outputs\n");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record/trace/broadcast-and-hooks", test_trace_broadcast_and_hooks);
  g_test_add_func ("/record/trace/custom-retain-accumulate-failed", test_trace_custom_retain_accumulate_failed);
  g_test_add_func ("/record/trace/values", test_trace_values);
  g_test_add_func ("/record/trace/failed-before-steps", test_trace_failed_before_steps);
  return g_test_run ();
}
