/* test-run-recorder.c — the forward side of the run record, on small
 * scripts run through the interpreter: names with the loop iteration of
 * their binding, origins (leaf, result, constant, no_grad, detached) with
 * their source, grad-mode regions, in-place ops and the statement that
 * changed a saved tensor, errors. */
#include "cr-interp.h"
#include "record-test-util.h"

#include <string.h>

/* The tensor labelled label, or NULL. */
static const CrRecordTensor *
find_label (const CrRunRecord *record,
            const char        *label)
{
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (g_strcmp0 (t->label, label) == 0)
        return t;
    }
  return NULL;
}

static const CrRecordOp *
op_at (const CrRunRecord *record,
       int                id)
{
  g_assert_cmpint (id, >=, 0);
  g_assert_cmpint (id, <, (int) record->ops->len);
  return g_ptr_array_index (record->ops, id);
}

/* Input k of op in the record, NULL: none (a Python number). */
static const CrRecordTensor *
op_input_rec (const CrRunRecord *record,
              const CrRecordOp  *op,
              guint              k)
{
  int id = g_array_index (op->inputs, int, k);
  return id >= 0 ? g_ptr_array_index (record->tensors, id) : NULL;
}

static void
test_off (void)
{
  CrInterpOptions o = { 0 };
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse ("import torch\nx = torch.ones(2, requires_grad=True)\n", -1,
                                  "demo.py", NULL, &error);
  CrInterp *interp = cr_interp_new (&o);
  g_assert_true (cr_interp_run (interp, module, NULL));
  g_assert_null (cr_interp_get_run_record (interp));
  cr_interp_free (interp);
  cr_ast_module_free (module);
}

/* A name rebound in a loop: one tensor per binding, "y₁", "y₂", "y₃",
 * each made by an op of that iteration. */
static void
test_loop_names (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x\n"
    "for step in range(3):\n"
    "    y = y * 2\n"
    "loss = y.sum()\n"
    "loss.backward()\n", NULL);
  g_assert_cmpstr (record->filename, ==, "demo.py");
  g_assert_nonnull (record->source);

  const CrRecordTensor *x = find_label (record, "x");
  g_assert_nonnull (x);
  g_assert_cmpint (x->origin, ==, CR_RECORD_TENSOR_LEAF);
  g_assert_cmpuint (x->iteration, ==, 0);
  g_assert_cmpint (x->span.line, ==, 2);
  g_assert_cmpstr (x->dtype, ==, "torch.float32");
  g_assert_nonnull (x->value);
  g_assert_cmpfloat (x->value->values[1], ==, 2.0);

  const char *labels[] = { "y₁", "y₂", "y₃" };
  int previous = (int) x->id;
  for (guint i = 0; i < 3; i++)
    {
      const CrRecordTensor *y = find_label (record, labels[i]);
      g_assert_nonnull (y);
      g_assert_cmpstr (y->name, ==, "y");
      g_assert_cmpuint (y->iteration, ==, i + 1);
      g_assert_cmpint (y->origin, ==, CR_RECORD_TENSOR_RESULT);
      const CrRecordOp *op = op_at (record, y->op);
      g_assert_cmpstr (op->grad_fn, ==, "MulBackward0");
      g_assert_cmpstr (op->caption, ==, "y = y * 2");
      g_assert_cmpint (op->span.line, ==, 5);
      g_assert_cmpuint (op->iteration, ==, i + 1);
      g_autofree char *key = g_strdup_printf ("op:MulBackward0:y = y * 2@%u", i + 1);
      g_assert_cmpstr (op->key, ==, key);
      g_assert_cmpstr (op->symbol, ==, "×");
      g_assert_nonnull (op->rule);
      g_assert_false (op->in_place);
      g_assert_null (op->custom_function);
      g_assert_cmpint (op->module_call, ==, -1);
      /* Its input is the previous binding; the 2 is a number, no tensor. */
      g_assert_cmpuint (op->inputs->len, ==, 2);
      g_assert_cmpint (g_array_index (op->inputs, int, 0), ==, previous);
      g_assert_cmpint (g_array_index (op->inputs, int, 1), ==, -1);
      g_assert_cmpuint (op->outputs->len, ==, 1);
      g_assert_cmpint (g_array_index (op->outputs, int, 0), ==, (int) y->id);
      g_assert_cmpfloat (y->value->values[0], ==, 2.0 * (1 << i));
      previous = (int) y->id;
    }
  const CrRecordTensor *loss = find_label (record, "loss");
  g_assert_nonnull (loss);
  g_assert_cmpstr (op_at (record, loss->op)->grad_fn, ==, "SumBackward0");
  g_assert_cmpstr (op_at (record, loss->op)->key, ==, "op:SumBackward0:loss = y.sum()");
  g_assert_cmpuint (loss->iteration, ==, 0);
}

/* Unnamed intermediates are named after the expression that made them;
 * a constant bound to a name keeps it; saved tensors name their tensor. */
static void
test_expressions_and_saved (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.tensor([3.0, 0.5], requires_grad=True)\n"
    "c = torch.tensor([2.0, 4.0])\n"
    "z = (w * c).sum()\n", NULL);
  const CrRecordTensor *c = find_label (record, "c");
  g_assert_nonnull (c);
  g_assert_cmpint (c->origin, ==, CR_RECORD_TENSOR_CONSTANT);
  g_assert_false (c->requires_grad);
  const CrRecordTensor *product = find_label (record, "(w * c)");
  g_assert_nonnull (product);
  const CrRecordOp *mul = op_at (record, product->op);
  g_assert_cmpstr (mul->key, ==, "op:MulBackward0:z = (w * c).sum()");
  g_assert_cmpint (g_array_index (mul->inputs, int, 1), ==, (int) c->id);
  /* w's gradient needs c: only c is saved (c needs no gradient). */
  g_assert_cmpuint (mul->saved->len, ==, 1);
  const CrRecordSaved *other = g_ptr_array_index (mul->saved, 0);
  g_assert_cmpstr (other->name, ==, "other");
  g_assert_cmpint (other->tensor, ==, (int) c->id);
  g_assert_cmpint (other->freed_backward, ==, -1);
  g_assert_cmpint (other->modified_span.line, ==, 0);
  g_assert_cmpint (other->ndim, ==, 1);
  g_assert_cmpint (other->shape[0], ==, 2);
  g_assert_cmpfloat (other->value->values[1], ==, 4.0);
  g_assert_cmpint (g_array_index (mul->inputs, int, 0), ==, (int) find_label (record, "w")->id);
}

/* no_grad and detach: the tensors made there say where they came from. */
static void
test_no_grad_and_detach (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.ones(5)\n"
    "w = torch.ones(5, 3, requires_grad=True)\n"
    "b = torch.ones(3, requires_grad=True)\n"
    "with torch.no_grad():\n"
    "    z = torch.matmul(x, w) + b\n"
    "    with torch.enable_grad():\n"
    "        e = w * 2\n"
    "u = torch.matmul(x, w) + b\n"
    "u_det = u.detach()\n"
    "d = u.data\n", NULL);
  g_assert_cmpuint (record->regions->len, ==, 2);
  const CrRecordRegion *no_grad = g_ptr_array_index (record->regions, 0);
  g_assert_cmpint (no_grad->kind, ==, CR_RECORD_REGION_NO_GRAD);
  g_assert_cmpint (no_grad->span.line, ==, 5);
  g_assert_cmpint (no_grad->span.end_line, ==, 8);
  const CrRecordRegion *enable = g_ptr_array_index (record->regions, 1);
  g_assert_cmpint (enable->kind, ==, CR_RECORD_REGION_ENABLE_GRAD);
  g_assert_cmpint (enable->span.line, ==, 7);

  const CrRecordTensor *z = find_label (record, "z");
  g_assert_nonnull (z);
  g_assert_cmpint (z->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
  g_assert_cmpint (z->region, ==, 0);
  g_assert_cmpint (z->source, ==, (int) find_label (record, "w")->id);
  g_assert_cmpint (z->op, ==, -1);
  g_assert_false (z->requires_grad);

  const CrRecordTensor *e = find_label (record, "e");
  g_assert_cmpint (e->origin, ==, CR_RECORD_TENSOR_RESULT);

  const CrRecordTensor *x = find_label (record, "x");
  g_assert_cmpint (x->origin, ==, CR_RECORD_TENSOR_CONSTANT);

  const CrRecordTensor *u = find_label (record, "u");
  const CrRecordTensor *u_det = find_label (record, "u_det");
  g_assert_nonnull (u_det);
  g_assert_cmpint (u_det->origin, ==, CR_RECORD_TENSOR_DETACHED);
  g_assert_cmpint (u_det->source, ==, (int) u->id);
  g_assert_cmpint (u_det->region, ==, -1);
  const CrRecordTensor *d = find_label (record, "d");
  g_assert_cmpint (d->origin, ==, CR_RECORD_TENSOR_DETACHED);
  g_assert_cmpint (d->source, ==, (int) u->id);

  /* torch.matmul(x, w) under no_grad is no tensor of the record: only
   * what the script named, or an op used, is. */
  guint n_no_grad = 0;
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->origin == CR_RECORD_TENSOR_NO_GRAD)
        {
          g_assert_nonnull (t->name);
          n_no_grad++;
        }
    }
  g_assert_cmpuint (n_no_grad, ==, 1);
}

/* A constant the graph never meets stays out; one an op saved is in, with
 * the name it was bound to. A custom Function's op names its class. */
static void
test_constants_and_custom (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "class Double(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        scaled = g * 2\n"
    "        return scaled\n"
    "unused = torch.zeros(3)\n"
    "targets = torch.ones(3)\n"
    "w = torch.ones(3, requires_grad=True)\n"
    "y = Double.apply(w)\n"
    "loss = (y * targets).sum()\n"
    "loss.backward()\n", NULL);
  g_assert_null (find_label (record, "unused"));
  g_assert_null (find_label (record, "scaled"));
  const CrRecordTensor *targets = find_label (record, "targets");
  g_assert_nonnull (targets);
  g_assert_cmpint (targets->origin, ==, CR_RECORD_TENSOR_CONSTANT);
  g_assert_cmpint (targets->span.line, ==, 11);
  const CrRecordOp *custom = op_at (record, find_label (record, "y")->op);
  g_assert_cmpstr (custom->custom_function, ==, "Double");
  g_assert_null (custom->rule);
  g_assert_cmpstr (custom->caption, ==, "y = Double.apply(w)");
}

/* A module's parameter is spanned where it was made, not where an op or
 * a backward first reached it. */
static void
test_parameter_span (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "class Scale(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.s = torch.nn.Parameter(torch.ones(2))\n"
    "    def forward(self, x):\n"
    "        return x * self.s\n"
    "m = Scale()\n"
    "lin = torch.nn.Linear(2, 1)\n"
    "out = lin(m(torch.ones(2))).sum()\n"
    "out.backward()\n", NULL);
  guint n_leaves = 0;
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->origin != CR_RECORD_TENSOR_LEAF)
        continue;
      n_leaves++;
      /* s where it was made; Linear's weight and bias inside a native: none. */
      if (t->ndim == 1 && t->shape[0] == 2)
        g_assert_cmpint (t->span.line, ==, 5);
      else
        g_assert_cmpint (t->span.line, ==, 0);
    }
  g_assert_cmpuint (n_leaves, ==, 3);
}

/* set_grad_enabled(False) as a statement runs until it is set back;
 * inference_mode is a region of its own kind. */
static void
test_grad_disabled_regions (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "torch.set_grad_enabled(False)\n"
    "a = w * 2\n"
    "torch.set_grad_enabled(True)\n"
    "with torch.inference_mode():\n"
    "    i = w + 1\n"
    "for k in range(2):\n"
    "    with torch.no_grad():\n"
    "        n = w - 1\n", NULL);
  g_assert_cmpuint (record->regions->len, ==, 4);
  const CrRecordRegion *off = g_ptr_array_index (record->regions, 0);
  g_assert_cmpint (off->kind, ==, CR_RECORD_REGION_GRAD_DISABLED);
  g_assert_cmpint (off->span.line, ==, 3);
  g_assert_cmpint (off->span.end_line, ==, 5);
  const CrRecordRegion *inference = g_ptr_array_index (record->regions, 1);
  g_assert_cmpint (inference->kind, ==, CR_RECORD_REGION_INFERENCE);
  const CrRecordRegion *second = g_ptr_array_index (record->regions, 3);
  g_assert_cmpint (second->kind, ==, CR_RECORD_REGION_NO_GRAD);
  g_assert_cmpuint (second->iteration, ==, 2);

  const CrRecordTensor *a = find_label (record, "a");
  g_assert_cmpint (a->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
  g_assert_cmpint (a->region, ==, 0);
  const CrRecordTensor *i = find_label (record, "i");
  g_assert_cmpint (i->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
  g_assert_cmpint (i->region, ==, 1);
  const CrRecordTensor *n2 = find_label (record, "n₂");
  g_assert_nonnull (n2);
  g_assert_cmpint (n2->region, ==, 3);
}

/* A model evaluated under no_grad: its output is made from the model's
 * parameters, which the script never named there, and from its input, the
 * source the window draws it from. */
static void
test_module_under_no_grad (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "model = torch.nn.Linear(2, 1)\n"
    "x = torch.ones(3, 2)\n"
    "with torch.no_grad():\n"
    "    pred = model(x)\n"
    "    label = model(x).argmax(0)\n"
    "    plain = x * 2\n", NULL);
  const CrRecordTensor *pred = find_label (record, "pred");
  g_assert_nonnull (pred);
  g_assert_cmpint (pred->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
  const CrRecordTensor *x = find_label (record, "x");
  g_assert_nonnull (x);
  g_assert_cmpint (x->origin, ==, CR_RECORD_TENSOR_CONSTANT);
  g_assert_cmpint (x->span.line, ==, 3);
  g_assert_cmpint (pred->source, ==, (int) x->id);
  g_assert_cmpint (pred->region, ==, 0);
  const CrRecordTensor *label = find_label (record, "label");
  g_assert_nonnull (label);
  g_assert_cmpint (label->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
  g_assert_cmpint (label->source, ==, (int) x->id);
  /* From data alone: a constant no op used, no tensor of the record. */
  g_assert_null (find_label (record, "plain"));
}

/* @torch.no_grad() on a def: the region is the def, and what its body
 * makes from a leaf is no_grad. */
static void
test_decorated_region (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "@torch.no_grad()\n"
    "def evaluate(t):\n"
    "    e = t * 2\n"
    "    return e\n"
    "out = evaluate(w)\n", NULL);
  g_assert_cmpuint (record->regions->len, ==, 1);
  const CrRecordRegion *region = g_ptr_array_index (record->regions, 0);
  g_assert_cmpint (region->kind, ==, CR_RECORD_REGION_NO_GRAD);
  g_assert_cmpint (region->span.line, ==, 4);
  g_assert_cmpint (region->span.end_line, ==, 6);
  const CrRecordTensor *e = find_label (record, "e");
  g_assert_nonnull (e);
  g_assert_cmpint (e->origin, ==, CR_RECORD_TENSOR_NO_GRAD);
  g_assert_cmpint (e->region, ==, 0);
  g_assert_cmpint (e->source, ==, (int) find_label (record, "w")->id);
}

/* An SGD step by hand: the update made under no_grad from w.grad is no
 * tensor computed from w (w.grad is no view of w); the saved w it changes
 * names that line when the next backward through the old graph fails. */
static void
test_update_by_hand (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "loss = (w * w).sum()\n"
    "loss.backward(retain_graph=True)\n"
    "with torch.no_grad():\n"
    "    step = 0.1 * w.grad\n"
    "    w -= step\n"
    "loss.backward()\n", &ok);
  g_assert_false (ok);
  /* Made from w.grad, which needs no grad: a constant no op used. */
  g_assert_null (find_label (record, "step"));
  g_assert_cmpuint (record->errors->len, ==, 1);
  const CrRecordError *err = g_ptr_array_index (record->errors, 0);
  g_assert_nonnull (strstr (err->message, "modified by an inplace operation"));
  g_assert_cmpint (err->span.line, ==, 8);
  g_assert_cmpint (err->culprit_span.line, ==, 7);
}

/* An in-place change of a saved tensor: the op is marked in place, the
 * saved slot and the error name the line that changed it. */
static void
test_inplace_culprit (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "b = a * 2\n"
    "c = b.sigmoid()\n"
    "b.add_(1)\n"
    "c.sum().backward()\n", &ok);
  g_assert_true (ok);
  const CrRecordTensor *c = find_label (record, "c");
  const CrRecordOp *sigmoid = op_at (record, c->op);
  g_assert_cmpstr (sigmoid->grad_fn, ==, "SigmoidBackward0");
  /* sigmoid saves its result, which b.add_ did not touch. */
  g_assert_cmpuint (sigmoid->saved->len, ==, 1);

  gboolean found_add = FALSE;
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = op_at (record, (int) i);
      if (g_strcmp0 (op->grad_fn, "AddBackward0") == 0)
        {
          g_assert_true (op->in_place);
          g_assert_cmpint (op->span.line, ==, 5);
          found_add = TRUE;
        }
    }
  g_assert_true (found_add);
  g_assert_cmpuint (record->errors->len, ==, 0);
}

/* Index assignment and augmented assignment are in-place ops too. */
static void
test_inplace_statements (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "x = torch.zeros(3)\n"
    "x[0] = (w * 2).sum()\n"
    "y = w * 3\n"
    "y += 1\n"
    "z = (x.sum() + y.sum())\n", NULL);
  guint n_in_place = 0;
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = op_at (record, (int) i);
      if (!op->in_place)
        continue;
      n_in_place++;
      if (g_strcmp0 (op->grad_fn, "CopySlices") == 0)
        g_assert_cmpint (op->span.line, ==, 4);
      else
        {
          g_assert_cmpstr (op->grad_fn, ==, "AddBackward0");
          g_assert_cmpint (op->span.line, ==, 6);
        }
    }
  g_assert_cmpuint (n_in_place, ==, 2);
}

static void
test_inplace_error (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "b = a * 2\n"
    "c = b * b\n"
    "\n"
    "b.mul_(3)\n"
    "c.sum().backward()\n", &ok);
  g_assert_false (ok);
  const CrRecordTensor *c = find_label (record, "c");
  const CrRecordOp *mul = op_at (record, c->op);
  g_assert_cmpuint (mul->saved->len, ==, 2);
  for (guint k = 0; k < 2; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (mul->saved, k);
      g_assert_cmpint (saved->modified_span.line, ==, 6);
    }
  g_assert_cmpuint (record->errors->len, ==, 1);
  const CrRecordError *err = g_ptr_array_index (record->errors, 0);
  g_assert_cmpstr (err->type, ==, "RuntimeError");
  g_assert_nonnull (strstr (err->message, "modified by an inplace operation"));
  g_assert_cmpint (err->span.line, ==, 7);
  g_assert_cmpint (err->culprit_span.line, ==, 6);
  g_assert_cmpint (err->op, ==, (int) mul->id);
}

static void
test_shape_error (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "a = torch.ones(2, 3, requires_grad=True)\n"
    "b = torch.ones(4)\n"
    "c = a * b\n", &ok);
  g_assert_false (ok);
  g_assert_cmpuint (record->errors->len, ==, 1);
  const CrRecordError *err = g_ptr_array_index (record->errors, 0);
  g_assert_cmpstr (err->type, ==, "RuntimeError");
  g_assert_cmpstr (err->message, ==,
                   "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  g_assert_cmpint (err->span.line, ==, 4);
  g_assert_cmpint (err->culprit_span.line, ==, 0);
}

/* Errors the script caught are in the record too, each once; one raised
 * again ends the run and is still one. */
static void
test_handled_errors (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "def bump(t):\n"
    "    t.add_(1)\n"
    "for i in range(2):\n"
    "    try:\n"
    "        bump(w)\n"
    "    except RuntimeError as e:\n"
    "        print(e)\n"
    "loss = (w * w).sum()\n"
    "loss.backward()\n"
    "try:\n"
    "    loss.backward()\n"
    "except RuntimeError:\n"
    "    pass\n"
    "try:\n"
    "    w.sub_(1)\n"
    "except RuntimeError:\n"
    "    raise\n", &ok);
  g_assert_false (ok);
  g_assert_cmpuint (record->errors->len, ==, 4);
  for (guint i = 0; i < 2; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      g_assert_cmpstr (err->type, ==, "RuntimeError");
      g_assert_cmpstr (err->message, ==,
                       "a leaf Variable that requires grad is being used in an in-place operation.");
      /* Where it was raised: inside the function. */
      g_assert_cmpint (err->span.line, ==, 4);
      g_assert_cmpint (err->backward, ==, -1);
    }
  const CrRecordError *second = g_ptr_array_index (record->errors, 2);
  g_assert_nonnull (strstr (second->message, "Trying to backward through the graph a second time"));
  g_assert_cmpint (second->span.line, ==, 13);
  const CrRecordError *last = g_ptr_array_index (record->errors, 3);
  g_assert_cmpint (last->span.line, ==, 17);
}

/* A function called in a loop: its ops and bindings take the caller's
 * iteration; a loop inside it counts its own. */
static void
test_iteration_through_calls (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "def f(t):\n"
    "    h = t * 3\n"
    "    return h\n"
    "outs = []\n"
    "for i in range(2):\n"
    "    o = f(w)\n"
    "k = 0\n"
    "while k < 2:\n"
    "    q = w + k\n"
    "    k += 1\n", NULL);
  g_assert_nonnull (find_label (record, "h₁"));
  g_assert_nonnull (find_label (record, "h₂"));
  g_assert_null (find_label (record, "o₁"));  /* the same tensor as h₁ */
  g_assert_nonnull (find_label (record, "q₁"));
  const CrRecordTensor *q2 = find_label (record, "q₂");
  g_assert_nonnull (q2);
  g_assert_cmpuint (op_at (record, q2->op)->iteration, ==, 2);
}

/* Nested loops: a label names every loop's iteration, outermost first;
 * unnamed results take their op's; op keys end in the path. */
static void
test_nested_loops (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "for i in range(2):\n"
    "    for j in range(3):\n"
    "        y = (w * j).sum()\n"
    "        y.backward()\n"
    "    z = w + i\n", NULL);
  const CrRecordTensor *y = find_label (record, "y₂,₃");
  g_assert_nonnull (y);
  g_assert_cmpstr (y->name, ==, "y");
  g_assert_cmpuint (y->iteration, ==, 3);
  g_assert_cmpuint (y->loop_depth, ==, 2);
  g_assert_cmpuint (y->loop_path[0], ==, 2);
  g_assert_cmpuint (y->loop_path[1], ==, 3);
  const CrRecordOp *sum = op_at (record, y->op);
  g_assert_cmpstr (sum->key, ==, "op:SumBackward0:y = (w * j).sum()@2.3");
  g_assert_cmpuint (sum->loop_depth, ==, 2);
  g_assert_cmpuint (sum->iteration, ==, 3);
  const CrRecordTensor *product = find_label (record, "(w * j)₁,₂");
  g_assert_nonnull (product);
  g_assert_null (product->name);
  g_assert_cmpuint (product->iteration, ==, 2);
  g_assert_cmpstr (op_at (record, product->op)->key, ==, "op:MulBackward0:y = (w * j).sum()@1.2");
  const CrRecordTensor *z = find_label (record, "z₂");
  g_assert_nonnull (z);
  g_assert_cmpuint (z->loop_depth, ==, 1);
  g_assert_cmpstr (op_at (record, z->op)->key, ==, "op:AddBackward0:z = w + i@2");
  g_assert_cmpuint (find_label (record, "w")->loop_depth, ==, 0);
  /* The last backward call and its steps say where they ran. */
  const CrRecordBackward *last = g_ptr_array_index (record->backwards, record->backwards->len - 1);
  g_assert_cmpstr (last->title, ==, "y.backward() · line 6 · iteration 2,3");
  const CrRecordStep *first = g_ptr_array_index (last->steps, 0);
  g_assert_cmpstr (first->caption, ==, "y = (w * j).sum(), line 5 · iteration 2,3");
}

/* Module calls, grad-mode regions and backward calls carry their loop
 * path too, as tensors and ops do. */
static void
test_loop_paths_of_calls (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "import torch.nn as nn\n"
    "fc = nn.Linear(2, 1)\n"
    "x = torch.ones(1, 2)\n"
    "with torch.no_grad():\n"
    "    p = fc(x)\n"
    "for i in range(2):\n"
    "    for j in range(3):\n"
    "        with torch.no_grad():\n"
    "            q = x * j\n"
    "        y = fc(x).sum()\n"
    "        y.backward()\n", NULL);
  g_assert_cmpuint (record->module_calls->len, ==, 7);
  const CrRecordModuleCall *outside = g_ptr_array_index (record->module_calls, 0);
  g_assert_cmpuint (outside->loop_depth, ==, 0);
  const CrRecordModuleCall *last_call = g_ptr_array_index (record->module_calls, 6);
  g_assert_cmpuint (last_call->iteration, ==, 3);
  g_assert_cmpuint (last_call->loop_depth, ==, 2);
  g_assert_cmpuint (last_call->loop_path[0], ==, 2);
  g_assert_cmpuint (last_call->loop_path[1], ==, 3);
  const CrRecordModuleCall *second = g_ptr_array_index (record->module_calls, 2);
  g_assert_cmpuint (second->loop_depth, ==, 2);
  g_assert_cmpuint (second->loop_path[0], ==, 1);
  g_assert_cmpuint (second->loop_path[1], ==, 2);

  g_assert_cmpuint (record->regions->len, ==, 7);
  const CrRecordRegion *first_region = g_ptr_array_index (record->regions, 0);
  g_assert_cmpuint (first_region->loop_depth, ==, 0);
  const CrRecordRegion *region = g_ptr_array_index (record->regions, 5);
  g_assert_cmpuint (region->loop_depth, ==, 2);
  g_assert_cmpuint (region->loop_path[0], ==, 2);
  g_assert_cmpuint (region->loop_path[1], ==, 2);

  g_assert_cmpuint (record->backwards->len, ==, 6);
  const CrRecordBackward *b = g_ptr_array_index (record->backwards, 4);
  g_assert_cmpstr (b->title, ==, "y.backward() · line 12 · iteration 2,2");
  g_assert_cmpuint (b->loop_depth, ==, 2);
  g_assert_cmpuint (b->loop_path[0], ==, 2);
  g_assert_cmpuint (b->loop_path[1], ==, 2);
}

/* The labels of err's operands, joined by " ". */
static char *
operand_labels (const CrRunRecord   *record,
                const CrRecordError *err)
{
  GString *labels = g_string_new (NULL);
  for (guint i = 0; i < err->operands->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, g_array_index (err->operands, int, i));
      g_string_append_printf (labels, i ? " %s" : "%s", t->label);
    }
  return g_string_free (labels, FALSE);
}

/* A forward error names the tensors the failing expression was given, a
 * constant among them entering the record; an exception the script raised
 * itself, or a backward call's error, names none. */
static void
test_error_operands (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "class MyError(ValueError):\n"
    "    pass\n"
    "try:\n"
    "    raise MyError('bad ' + str(w.shape))\n"
    "except ValueError:\n"
    "    pass\n"
    "loss = (w * w).sum()\n"
    "loss.backward()\n"
    "try:\n"
    "    loss.backward()\n"
    "except RuntimeError:\n"
    "    pass\n"
    "c = torch.ones(3)\n"
    "for i in range(2):\n"
    "    try:\n"
    "        d = torch.cat([w, c.unsqueeze(0)]) if i else c + w * 1\n"
    "    except RuntimeError:\n"
    "        pass\n"
    "def check(t):\n"
    "    if t.sum() > 0:\n"
    "        raise MyError('positive')\n"
    "check(w)\n", &ok);
  g_assert_false (ok);
  g_assert_cmpuint (record->errors->len, ==, 5);
  const char *want[] = { "", "", "c (w * 1)₁", "w (c.unsqueeze(0))", "" };
  /* The script's own exception class by its name, as the traceback says. */
  const char *types[] = { "MyError", "RuntimeError", "RuntimeError", "RuntimeError", "MyError" };
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      g_autofree char *labels = operand_labels (record, err);
      g_assert_cmpstr (labels, ==, want[i]);
      g_assert_cmpstr (err->type, ==, types[i]);
      /* The first operand is the tensor at fault. */
      g_assert_cmpint (err->tensor, ==, err->operands->len ? g_array_index (err->operands, int, 0) : -1);
    }
  const CrRecordTensor *c = find_label (record, "c");
  g_assert_nonnull (c);
  g_assert_cmpint (c->origin, ==, CR_RECORD_TENSOR_CONSTANT);
  g_assert_cmpint (c->span.line, ==, 15);
}

/* An error inside torch.nn names the operands of the op that failed there:
 * the input and the layer's weight whose shapes the message quotes (not
 * the bias, nor weight.t() but the weight itself); a constant the script
 * gave the module is called after the name it had in the script's code. */
static void
test_library_operands (void)
{
  gboolean ok;
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.conv = nn.Conv2d(3, 8, 3)\n"
    "        self.fc = nn.Linear(8, 2)\n"
    "    def forward(self, x):\n"
    "        return self.fc(self.conv(x).mean((2, 3)))\n"
    "net = Net()\n"
    "try:\n"
    "    net(torch.ones(1, 4, 8, 8))\n"
    "except RuntimeError:\n"
    "    pass\n"
    "h = torch.ones(2, 5)\n"
    "y = net.fc(h)\n", &ok);
  g_assert_false (ok);
  g_assert_cmpuint (record->errors->len, ==, 2);
  const char *want[] = { "x conv.weight", "h fc.weight" };
  const int lines[] = { 9, 16 };
  for (guint i = 0; i < record->errors->len; i++)
    {
      const CrRecordError *err = g_ptr_array_index (record->errors, i);
      g_autofree char *labels = operand_labels (record, err);
      g_assert_cmpstr (labels, ==, want[i]);
      g_assert_cmpint (err->span.line, ==, lines[i]);
      g_assert_cmpint (err->tensor, ==, g_array_index (err->operands, int, 0));
      g_assert_true (cr_record_error_names_tensor (err, g_array_index (err->operands, int, 1)));
    }
  const CrRecordError *last = g_ptr_array_index (record->errors, 1);
  g_assert_false (cr_record_error_names_tensor (last, -1));
  const CrRecordTensor *h = find_label (record, "h");
  g_assert_false (cr_record_error_names_tensor (last, (int) h->id + 100));
}

/* An op with more outputs than the record has room for is left out, and
 * the record says it was cut short; what came later is still recorded. */
static void
test_truncated (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.ones(100001, requires_grad=True)\n"
    "first = x.unbind()[0]\n"
    "y = x * 2\n", NULL);
  g_assert_true (record->truncated);
  g_assert_null (find_label (record, "first"));
  const CrRecordTensor *y = find_label (record, "y");
  g_assert_nonnull (y);
  g_assert_cmpstr (op_at (record, y->op)->grad_fn, ==, "MulBackward0");

  g_autoptr (CrRunRecord) small = record_test_run ("demo.py",
    "import torch\n"
    "x = torch.ones(3, requires_grad=True)\n"
    "first = x.unbind()[0]\n", NULL);
  g_assert_false (small->truncated);
  g_assert_nonnull (find_label (small, "first"));
}

/* An op that saves nothing (Add, Sub) still names the tensors it was given
 * that need no gradient: a detached tensor is that tensor, with its source,
 * and a named constant keeps its name; neither is an anonymous constant. */
static void
test_unsaved_operands (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("demo.py",
    "import torch\n"
    "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "n = torch.tensor([4.0, 5.0, 6.0])\n"
    "d = w.detach()\n"
    "y = (w*n + d).sum()\n"
    "z = torch.add(w, n) - d\n"
    "c = torch.ones(3)\n"
    "v = c.add(w)\n"
    "y.backward()\n", NULL);
  const CrRecordTensor *w = find_label (record, "w");
  const CrRecordTensor *n = find_label (record, "n");
  const CrRecordTensor *d = find_label (record, "d");
  const CrRecordTensor *c = find_label (record, "c");
  g_assert_nonnull (d);
  g_assert_cmpint (d->origin, ==, CR_RECORD_TENSOR_DETACHED);
  g_assert_cmpint (d->source, ==, (int) w->id);
  /* The op of each line, with the tensors of its inputs. */
  const struct { guint line; const char *grad_fn; int inputs[2]; } want[] = {
    { 5, "AddBackward0", { -2, (int) d->id } },
    { 6, "AddBackward0", { (int) w->id, (int) n->id } },
    { 6, "SubBackward0", { -2, (int) d->id } },
    { 8, "AddBackward0", { (int) c->id, (int) w->id } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      const CrRecordOp *found = NULL;
      for (guint i = 0; i < record->ops->len && !found; i++)
        {
          const CrRecordOp *op = g_ptr_array_index (record->ops, i);
          if (op->span.line == (int) want[k].line && g_strcmp0 (op->grad_fn, want[k].grad_fn) == 0)
            found = op;
        }
      g_assert_nonnull (found);
      g_assert_cmpuint (found->inputs->len, ==, 2);
      for (guint i = 0; i < 2; i++)
        if (want[k].inputs[i] != -2)   /* -2: the result of another op */
          g_assert_cmpint (g_array_index (found->inputs, int, i), ==, want[k].inputs[i]);
    }
  g_assert_cmpint (c->origin, ==, CR_RECORD_TENSOR_CONSTANT);
  g_assert_cmpstr (n->name, ==, "n");
}

/* The arguments an op keeps that are no tensor: a reduction's dims and
 * keepdim, a softmax's dim (wrapped), a convolution's geometry, a pool's
 * with its default stride filled in, layer norm's eps, a slice's cut,
 * gelu's approximate, nll_loss's reduction and ignore_index (the default
 * -100 as given), roll's shifts. */
static void
test_op_arguments (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("args.py",
    "import torch\n"
    "import torch.nn.functional as F\n"
    "x = torch.ones(1, 1, 4, 4, requires_grad=True)\n"
    "s = x.sum((1, 3), keepdim=True)\n"
    "p = torch.softmax(x, dim=-1)\n"
    "c = F.conv2d(x, torch.ones(2, 1, 2, 2), stride=2, padding=1)\n"
    "m = F.max_pool2d(x, 2)\n"
    "n = F.layer_norm(x, (4,), eps=0.25)\n"
    "t = x[:, :, 1:, ::2]\n"
    "g = F.gelu(x, approximate='tanh')\n"
    "h = F.gelu(x)\n"
    "lp = torch.log_softmax(x.view(4, 4), dim=1)\n"
    "l = F.nll_loss(lp, torch.tensor([0, 1, 2, 3]), ignore_index=2, reduction='sum')\n"
    "d = F.nll_loss(lp, torch.tensor([0, 1, 2, 3]))\n"
    "r = torch.roll(x, -3)\n"
    "q = torch.roll(x, (1, -1), (3, 2))\n", NULL);
  const struct { const char *label, *name; CrRecordArgumentKind kind; int n; double v0, v1; }
  want[] = {
    { "s", "dim", CR_RECORD_ARGUMENT_INTS, 2, 1, 3 },
    { "s", "keepdim", CR_RECORD_ARGUMENT_BOOL, 1, 1, 0 },
    { "p", "dim", CR_RECORD_ARGUMENT_INT, 1, 3, 0 },
    { "c", "stride", CR_RECORD_ARGUMENT_INTS, 2, 2, 2 },
    { "c", "padding", CR_RECORD_ARGUMENT_INTS, 2, 1, 1 },
    { "c", "groups", CR_RECORD_ARGUMENT_INT, 1, 1, 0 },
    { "m", "kernel_size", CR_RECORD_ARGUMENT_INTS, 2, 2, 2 },
    { "m", "stride", CR_RECORD_ARGUMENT_INTS, 2, 2, 2 },
    { "n", "eps", CR_RECORD_ARGUMENT_FLOAT, 1, 0.25, 0 },
    { "t", "start", CR_RECORD_ARGUMENT_INT, 1, 0, 0 },
    { "t", "step", CR_RECORD_ARGUMENT_INT, 1, 2, 0 },
    { "g", "approximate", CR_RECORD_ARGUMENT_INT, 1, 1, 0 },
    { "h", "approximate", CR_RECORD_ARGUMENT_INT, 1, 0, 0 },
    { "l", "reduction", CR_RECORD_ARGUMENT_INT, 1, 2, 0 },
    { "l", "ignore_index", CR_RECORD_ARGUMENT_INT, 1, 2, 0 },
    { "d", "reduction", CR_RECORD_ARGUMENT_INT, 1, 1, 0 },
    { "d", "ignore_index", CR_RECORD_ARGUMENT_INT, 1, -100, 0 },
    /* Without dims roll shifts the 16 elements in order, by 13 = -3 mod 16;
     * with them, the shift of each dim: (0, 0, 3, 1). */
    { "r", "shifts", CR_RECORD_ARGUMENT_INTS, 1, 13, 0 },
    { "q", "shifts", CR_RECORD_ARGUMENT_INTS, 4, 0, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const CrRecordTensor *t = find_label (record, want[i].label);
      g_assert_nonnull (t);
      const CrRecordArgument *a = cr_record_op_argument (op_at (record, t->op), want[i].name);
      if (!a)
        g_error ("%s's op keeps no %s", want[i].label, want[i].name);
      g_assert_cmpint (a->kind, ==, want[i].kind);
      g_assert_cmpint (a->n_values, ==, want[i].n);
      g_assert_cmpfloat (a->values[0], ==, want[i].v0);
      if (want[i].n > 1)
        g_assert_cmpfloat (a->values[1], ==, want[i].v1);
    }
  const CrRecordArgument *q = cr_record_op_argument (op_at (record, find_label (record, "q")->op), "shifts");
  g_assert_cmpfloat (q->values[2], ==, 3);
  g_assert_cmpfloat (q->values[3], ==, 1);
  /* A sum of everything keeps no dim. */
  g_autoptr (CrRunRecord) all = record_test_run ("all.py",
    "import torch\n"
    "x = torch.ones(3, requires_grad=True)\n"
    "s = x.sum()\n", NULL);
  g_assert_null (cr_record_op_argument (op_at (all, find_label (all, "s")->op), "dim"));
}

/* A saved tensor that needs no grad and views a named one: a view the
 * script made (probs[0]) is itself, with the expression's name, not the
 * tensor it views; one a native made (x.unsqueeze(0) inside matmul) is
 * the variable. */
static void
test_saved_views (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("views.py",
    "import torch\n"
    "import torch.nn.functional as F\n"
    "probs = torch.softmax(torch.ones(3, 4), 1)\n"
    "a = torch.ones(4, requires_grad=True)\n"
    "l = F.cross_entropy(a, probs[0])\n"
    "x = torch.ones(4)\n"
    "m = torch.matmul(x, torch.ones(4, 2, requires_grad=True))\n", NULL);
  const CrRecordTensor *row = find_label (record, "(probs[0])");
  g_assert_nonnull (row);
  g_assert_cmpint (row->origin, ==, CR_RECORD_TENSOR_CONSTANT);
  g_assert_cmpint (row->ndim, ==, 1);
  g_assert_cmpint (row->shape[0], ==, 4);
  /* cross_entropy's product of the log-probabilities and the target reads the row. */
  gboolean read = FALSE;
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = op_at (record, (int) i);
      for (guint k = 0; k < op->inputs->len; k++)
        {
          const CrRecordTensor *in = op_input_rec (record, op, k);
          g_assert_true (!in || g_strcmp0 (in->label, "probs") != 0);
          read |= in == row && g_str_equal (op->grad_fn, "MulBackward0");
        }
    }
  g_assert_true (read);
  const CrRecordOp *mm = op_at (record, find_label (record, "[MmBackward0]")->op);
  g_assert_cmpstr (op_input_rec (record, mm, 0)->label, ==, "x");
}

/* index_copy_ into a tensor without grad: the op keeps a mask of self's
 * shape and dtype of its own, which is no input (it was recorded as self). */
static void
test_saved_own_tensors (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("own.py",
    "import torch\n"
    "x = torch.zeros(3, 2)\n"
    "v = torch.ones(2, 2, requires_grad=True)\n"
    "x.index_copy_(0, torch.tensor([2, 0]), v)\n"
    "x.sum().backward()\n", NULL);
  const CrRecordOp *copy = NULL;
  for (guint i = 0; i < record->ops->len && !copy; i++)
    if (g_str_equal (op_at (record, (int) i)->grad_fn, "IndexCopyBackward0"))
      copy = op_at (record, (int) i);
  g_assert_nonnull (copy);
  g_assert_cmpuint (copy->saved->len, ==, 2);
  for (guint k = 0; k < copy->saved->len; k++)
    {
      const CrRecordSaved *saved = g_ptr_array_index (copy->saved, k);
      g_assert_true (saved->internal);
      g_assert_cmpint (saved->tensor, ==, -1);
    }
  const CrRecordTensor *self = op_input_rec (record, copy, 0);
  g_assert_nonnull (self);
  g_assert_cmpint (self->ndim, ==, 2);
  g_assert_true (!self->value || self->value->values[2] == 0);   /* the mask's row 1 is 1 */
  g_assert_true (op_input_rec (record, copy, 1) == find_label (record, "v"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/recorder/off", test_off);
  g_test_add_func ("/recorder/loop-names", test_loop_names);
  g_test_add_func ("/recorder/expressions-and-saved", test_expressions_and_saved);
  g_test_add_func ("/recorder/no-grad-and-detach", test_no_grad_and_detach);
  g_test_add_func ("/recorder/grad-disabled-regions", test_grad_disabled_regions);
  g_test_add_func ("/recorder/constants-and-custom", test_constants_and_custom);
  g_test_add_func ("/recorder/module-under-no-grad", test_module_under_no_grad);
  g_test_add_func ("/recorder/decorated-region", test_decorated_region);
  g_test_add_func ("/recorder/update-by-hand", test_update_by_hand);
  g_test_add_func ("/recorder/parameter-span", test_parameter_span);
  g_test_add_func ("/recorder/inplace-culprit", test_inplace_culprit);
  g_test_add_func ("/recorder/inplace-statements", test_inplace_statements);
  g_test_add_func ("/recorder/inplace-error", test_inplace_error);
  g_test_add_func ("/recorder/shape-error", test_shape_error);
  g_test_add_func ("/recorder/handled-errors", test_handled_errors);
  g_test_add_func ("/recorder/iteration-through-calls", test_iteration_through_calls);
  g_test_add_func ("/recorder/truncated", test_truncated);
  g_test_add_func ("/recorder/unsaved-operands", test_unsaved_operands);
  g_test_add_func ("/recorder/error-operands", test_error_operands);
  g_test_add_func ("/recorder/nested-loops", test_nested_loops);
  g_test_add_func ("/recorder/loop-paths-of-calls", test_loop_paths_of_calls);
  g_test_add_func ("/recorder/library-operands", test_library_operands);
  g_test_add_func ("/recorder/op-arguments", test_op_arguments);
  g_test_add_func ("/recorder/saved-views", test_saved_views);
  g_test_add_func ("/recorder/saved-own-tensors", test_saved_own_tensors);
  return g_test_run ();
}
