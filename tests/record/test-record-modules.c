/* test-record-modules.c — module code in the run record: every nn.Module
 * call with its path, class, parent, depth, iteration and call site; each
 * op's innermost call; each parameter's path; the calls of user classes
 * that are no modules (micrograd's Neuron). Scripts run through the
 * interpreter with recording on. */
#include "cr-interp.h"
#include "cr-ast.h"
#include "cr-run-record.h"

#include <string.h>

static CrRunRecord *
record_of (const char *source)
{
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse (source, -1, "modules.py", NULL, &error);
  g_assert_no_error (error);
  CrInterpOptions options = { 0 };
  options.record_backward = TRUE;
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  gboolean ok = cr_interp_run (interp, module, &script_error);
  if (!ok)
    g_printerr ("%s", script_error->traceback);
  g_assert_true (ok);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  g_assert_nonnull (record);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return record;
}

static const CrRecordModuleCall *
call_at (const CrRunRecord *record,
         int                i)
{
  g_assert_cmpint (i, >=, 0);
  g_assert_cmpint (i, <, (int) record->module_calls->len);
  return g_ptr_array_index (record->module_calls, i);
}

/* The first call with path, or NULL. */
static const CrRecordModuleCall *
find_call (const CrRunRecord *record,
           const char        *path)
{
  for (guint i = 0; i < record->module_calls->len; i++)
    {
      const CrRecordModuleCall *c = g_ptr_array_index (record->module_calls, i);
      if (g_strcmp0 (c->path, path) == 0)
        return c;
    }
  return NULL;
}

/* The path of the call the (first) op with grad_fn ran in, or NULL. */
static const char *
op_call_path (const CrRunRecord *record,
              const char        *grad_fn)
{
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      if (strcmp (op->grad_fn, grad_fn) == 0)
        return op->module_call >= 0 ? call_at (record, op->module_call)->path : NULL;
    }
  g_assert_not_reached ();
}

static const CrRecordTensor *
find_tensor_path (const CrRunRecord *record,
                  const char        *path)
{
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (g_strcmp0 (t->module_path, path) == 0)
        return t;
    }
  return NULL;
}

static void
test_nested_modules (void)
{
  g_autoptr (CrRunRecord) record = record_of (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Block(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.lin = nn.Linear(3, 3)\n"
    "    def forward(self, x):\n"
    "        return torch.tanh(self.lin(x))\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.layers = nn.Sequential(Block(), Block())\n"
    "        self.head = nn.Linear(3, 1)\n"
    "    def forward(self, x):\n"
    "        return self.head(self.layers(x))\n"
    "torch.manual_seed(0)\n"
    "model = Net()\n"
    "x = torch.ones(2, 3)\n"
    "loss = model(x).sum()\n"
    "loss.backward()\n");

  /* Net, layers, layers.0, layers.0.lin, layers.1, layers.1.lin, head. */
  g_assert_cmpuint (record->module_calls->len, ==, 7);
  const CrRecordModuleCall *net = call_at (record, 0);
  g_assert_cmpstr (net->path, ==, "");
  g_assert_cmpstr (net->class_name, ==, "Net");
  g_assert_cmpint (net->parent, ==, -1);
  g_assert_cmpuint (net->depth, ==, 0);
  g_assert_false (net->user_class);
  g_assert_cmpint (net->span.line, ==, 19);

  const CrRecordModuleCall *seq = find_call (record, "layers");
  g_assert_nonnull (seq);
  g_assert_cmpstr (seq->class_name, ==, "Sequential");
  g_assert_cmpint (seq->parent, ==, 0);
  g_assert_cmpuint (seq->depth, ==, 1);
  const CrRecordModuleCall *block1 = find_call (record, "layers.1");
  g_assert_nonnull (block1);
  g_assert_cmpstr (block1->class_name, ==, "Block");
  g_assert_cmpint (block1->parent, ==, (int) seq->id);
  g_assert_cmpuint (block1->depth, ==, 2);
  const CrRecordModuleCall *lin1 = find_call (record, "layers.1.lin");
  g_assert_nonnull (lin1);
  g_assert_cmpstr (lin1->class_name, ==, "Linear");
  g_assert_cmpint (lin1->parent, ==, (int) block1->id);
  g_assert_cmpuint (lin1->depth, ==, 3);
  /* The call site of a call in forward is its line there. */
  g_assert_cmpint (lin1->span.line, ==, 8);
  const CrRecordModuleCall *head = find_call (record, "head");
  g_assert_nonnull (head);
  g_assert_cmpint (head->parent, ==, 0);

  /* Each op in its innermost call; the sum outside any. */
  g_assert_cmpstr (op_call_path (record, "TanhBackward0"), ==, "layers.0");
  g_assert_cmpstr (op_call_path (record, "SumBackward0"), ==, NULL);
  guint in_head = 0, in_lin = 0;
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      if (op->module_call < 0)
        continue;
      const char *path = call_at (record, op->module_call)->path;
      in_head += strcmp (path, "head") == 0;
      in_lin += g_str_has_suffix (path, ".lin");
    }
  g_assert_cmpuint (in_head, >=, 1);
  g_assert_cmpuint (in_lin, >=, 2);

  /* Parameters by their named_parameters() path. */
  g_assert_nonnull (find_tensor_path (record, "layers.0.lin.weight"));
  g_assert_nonnull (find_tensor_path (record, "layers.1.lin.bias"));
  const CrRecordTensor *w = find_tensor_path (record, "head.weight");
  g_assert_nonnull (w);
  g_assert_cmpint (w->origin, ==, CR_RECORD_TENSOR_LEAF);
}

/* A training loop: a call per iteration, with it. */
static void
test_calls_in_a_loop (void)
{
  g_autoptr (CrRunRecord) record = record_of (
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "fc = nn.Linear(2, 1)\n"
    "for i in range(3):\n"
    "    loss = fc(torch.ones(1, 2)).sum()\n"
    "    loss.backward()\n");
  g_assert_cmpuint (record->module_calls->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const CrRecordModuleCall *c = call_at (record, (int) i);
      g_assert_cmpstr (c->path, ==, "");
      g_assert_cmpstr (c->class_name, ==, "Linear");
      g_assert_cmpuint (c->iteration, ==, i + 1);
      g_assert_cmpint (c->span.line, ==, 6);
    }
  /* The module's own parameters under its variable's name. */
  g_assert_nonnull (find_tensor_path (record, "fc.weight"));
  g_assert_cmpstr (find_tensor_path (record, "fc.bias")->label, ==, "fc.bias");
  g_assert_null (find_tensor_path (record, "weight"));
}

/* A module bound in a function is named after that local; a model's own
 * parameter after the model, its submodules' by their path from it. */
static void
test_bound_names (void)
{
  g_autoptr (CrRunRecord) record = record_of (
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.scale = nn.Parameter(torch.ones(1))\n"
    "        self.fc1 = nn.Linear(2, 2)\n"
    "    def forward(self, x):\n"
    "        return self.fc1(x) * self.scale\n"
    "def run(x):\n"
    "    head = nn.Linear(2, 1)\n"
    "    return head(x)\n"
    "net = Net()\n"
    "run(net(torch.ones(1, 2))).sum().backward()\n");
  g_assert_nonnull (find_tensor_path (record, "net.scale"));
  g_assert_nonnull (find_tensor_path (record, "fc1.weight"));
  g_assert_nonnull (find_tensor_path (record, "head.weight"));
  g_assert_nonnull (find_tensor_path (record, "head.bias"));
}

/* micrograd's classes: no nn.Module, yet grouped by their calls, paths
 * from the outermost object's attributes. */
static void
test_user_classes (void)
{
  g_autoptr (CrRunRecord) record = record_of (
    "import torch\n"
    "class Neuron:\n"
    "    def __init__(self, n):\n"
    "        self.w = [torch.tensor(0.5, requires_grad=True) for _ in range(n)]\n"
    "        self.b = torch.tensor(0.0, requires_grad=True)\n"
    "    def __call__(self, x):\n"
    "        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)\n"
    "        return act.tanh()\n"
    "class Layer:\n"
    "    def __init__(self, nin, nout):\n"
    "        self.neurons = [Neuron(nin) for _ in range(nout)]\n"
    "    def __call__(self, x):\n"
    "        return [n(x) for n in self.neurons]\n"
    "class MLP:\n"
    "    def __init__(self):\n"
    "        self.layers = [Layer(2, 2), Layer(2, 1)]\n"
    "    def __call__(self, x):\n"
    "        for layer in self.layers:\n"
    "            x = layer(x)\n"
    "        return x[0]\n"
    "mlp = MLP()\n"
    "out = mlp([1.0, 2.0])\n"
    "out.backward()\n");
  /* MLP, layers.0 and its 2 neurons, layers.1 and its neuron. */
  g_assert_cmpuint (record->module_calls->len, ==, 6);
  const CrRecordModuleCall *mlp = call_at (record, 0);
  g_assert_cmpstr (mlp->class_name, ==, "MLP");
  g_assert_true (mlp->user_class);
  const CrRecordModuleCall *n = find_call (record, "layers.0.neurons.1");
  g_assert_nonnull (n);
  g_assert_cmpstr (n->class_name, ==, "Neuron");
  g_assert_true (n->user_class);
  g_assert_cmpuint (n->depth, ==, 2);
  g_assert_cmpstr (op_call_path (record, "TanhBackward0"), ==, "layers.0.neurons.0");
  g_assert_nonnull (find_tensor_path (record, "layers.1.neurons.0.b"));
  g_assert_nonnull (find_tensor_path (record, "layers.0.neurons.1.w.1"));
}

/* A call that raises still ends: the calls after it are not its children. */
static void
test_call_that_raises (void)
{
  g_autoptr (CrRunRecord) record = record_of (
    "import torch\n"
    "import torch.nn as nn\n"
    "fc = nn.Linear(2, 1)\n"
    "try:\n"
    "    fc(torch.ones(1, 3))\n"
    "except RuntimeError:\n"
    "    pass\n"
    "y = fc(torch.ones(1, 2))\n");
  g_assert_cmpuint (record->module_calls->len, ==, 2);
  g_assert_cmpint (call_at (record, 1)->parent, ==, -1);
  g_assert_cmpuint (call_at (record, 1)->depth, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-modules/nested", test_nested_modules);
  g_test_add_func ("/record-modules/loop", test_calls_in_a_loop);
  g_test_add_func ("/record-modules/bound-names", test_bound_names);
  g_test_add_func ("/record-modules/user-classes", test_user_classes);
  g_test_add_func ("/record-modules/raises", test_call_that_raises);
  return g_test_run ();
}
