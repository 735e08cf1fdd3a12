/* test-record-leaf-init.c — a leaf initialised in place after it was made
 * (w.data.fill_(2.0), w.copy_() under no_grad, nn.init, w.data.normal_()):
 * the record's value of the leaf is the one the forward ops read, as
 * PyTorch computes with it, not its value when it was made. Each script
 * computes `w * 3`, whose recorded output is three times the value the
 * op read. */
#include "record-test-util.h"

#include <math.h>
#include <string.h>

static const CrRecordTensor *
tensor_named (const CrRunRecord *record,
              const char        *label)
{
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      if (t->label && strcmp (t->label, label) == 0)
        return t;
    }
  g_error ("no tensor %s in the record", label);
  return NULL;
}

/* The recorded value of leaf `name` is `expected` (NULL: not checked) and
 * a third of what the op that made `product` (name * 3) computed. */
static void
assert_leaf_read (const CrRunRecord *record,
                  const char        *name,
                  const char        *product,
                  const double      *expected)
{
  const CrRecordTensor *leaf = tensor_named (record, name);
  const CrRecordTensor *out = tensor_named (record, product);
  g_assert_cmpint (leaf->origin, ==, CR_RECORD_TENSOR_LEAF);
  g_assert_nonnull (leaf->value);
  g_assert_nonnull (out->value);
  g_assert_cmpint (out->op, >=, 0);
  const CrRecordOp *op = g_ptr_array_index (record->ops, out->op);
  g_assert_cmpint (g_array_index (op->inputs, int, 0), ==, (int) leaf->id);
  g_assert_cmpint (leaf->value->numel, ==, out->value->numel);
  g_assert_cmpint (leaf->value->n_values, ==, leaf->value->numel);
  for (gint64 i = 0; i < leaf->value->numel; i++)
    {
      double read = leaf->value->values[i];
      if (expected)
        g_assert_cmpfloat_with_epsilon (read, expected[i], 1e-6);
      g_assert_cmpfloat_with_epsilon (3 * read, out->value->values[i], 1e-5);
    }
}

static void
test_data_fill (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "w = torch.zeros(3, requires_grad=True)\n"
    "w.data.fill_(2.0)\n"
    "y = w * 3\n"
    "(w * w).sum().backward()\n", NULL);
  const double two[] = { 2, 2, 2 };
  assert_leaf_read (record, "w", "y", two);
}

static void
test_no_grad_copy (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "w = torch.zeros(3, requires_grad=True)\n"
    "with torch.no_grad():\n"
    "    w.copy_(torch.tensor([1.0, 2.0, 3.0]))\n"
    "y = w * 3\n"
    "y.sum().backward()\n", NULL);
  const double values[] = { 1, 2, 3 };
  assert_leaf_read (record, "w", "y", values);
}

static void
test_nn_init (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "from torch import nn\n"
    "torch.manual_seed(0)\n"
    "v = torch.zeros(2, requires_grad=True)\n"
    "nn.init.constant_(v, 5.0)\n"
    "a = v * 3\n"
    "u = torch.zeros(4, requires_grad=True)\n"
    "nn.init.normal_(u)\n"
    "b = u * 3\n"
    "(a.sum() + b.sum()).backward()\n", NULL);
  const double fives[] = { 5, 5 };
  assert_leaf_read (record, "v", "a", fives);
  assert_leaf_read (record, "u", "b", NULL);
  /* normal_ wrote values, and a nonzero one among them. */
  const CrRecordTensor *u = tensor_named (record, "u");
  g_assert_cmpfloat (u->value->std, >, 0.0);
}

/* d2l's pattern: a random draw, then more in-place statements on .data and
 * detach(); the last value before the forward is the one read. */
static void
test_data_normal_then_scale (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "torch.manual_seed(1)\n"
    "w = torch.ones(2, 3, requires_grad=True)\n"
    "w.data.normal_(0, 0.01)\n"
    "w.data.mul_(100.0)\n"
    "b = torch.ones(3, requires_grad=True)\n"
    "b.detach().zero_()\n"
    "y = w * 3\n"
    "c = b * 3\n"
    "(y.sum() + c.sum()).backward()\n", NULL);
  assert_leaf_read (record, "w", "y", NULL);
  const double zeros[] = { 0, 0, 0 };
  assert_leaf_read (record, "b", "c", zeros);
  g_assert_cmpfloat (tensor_named (record, "w")->value->std, >, 0.1);
}

/* A module's parameters, initialised through nn.init and .data. */
static void
test_module_parameters (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "from torch import nn\n"
    "lin = nn.Linear(2, 1)\n"
    "nn.init.constant_(lin.weight, 0.5)\n"
    "lin.bias.data.fill_(0.25)\n"
    "x = torch.tensor([[1.0, 2.0]])\n"
    "lin(x).sum().backward()\n", NULL);
  const CrRecordTensor *weight = tensor_named (record, "lin.weight");
  const CrRecordTensor *bias = tensor_named (record, "lin.bias");
  g_assert_cmpfloat (weight->value->values[0], ==, 0.5);
  g_assert_cmpfloat (weight->value->values[1], ==, 0.5);
  g_assert_cmpfloat (bias->value->values[0], ==, 0.25);
}

/* A change after an op read the leaf is no initialisation: the leaf keeps
 * the value that op read (a later op's reading is its saved tensor's). */
static void
test_change_after_read (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "y = w * 3\n"
    "w.data.fill_(7.0)\n"
    "z = w * w\n"
    "(y.sum() + z.sum()).backward()\n", NULL);
  const double ones[] = { 1, 1 };
  assert_leaf_read (record, "w", "y", ones);
  const CrRecordTensor *z = tensor_named (record, "z");
  g_assert_cmpfloat (z->value->values[0], ==, 49.0);
  const CrRecordOp *mul = g_ptr_array_index (record->ops, z->op);
  g_assert_cmpuint (mul->saved->len, >, 0);
  const CrRecordSaved *saved = g_ptr_array_index (mul->saved, 0);
  g_assert_nonnull (saved->value);
  g_assert_cmpfloat (saved->value->values[0], ==, 7.0);
}

/* A write to part of a leaf outside autograd goes through a view of it or
 * of its .data / detach() alias: the leaf's whole value is taken again. */
static void
test_partial_writes (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "w = torch.zeros(2, 3, requires_grad=True)\n"
    "w.data[0].fill_(1.5)\n"
    "w.data[:, 1] = 4.0\n"
    "with torch.no_grad():\n"
    "    w[1, 2] = 7.0\n"
    "    w[1].mul_(2.0)\n"
    "y = w * 3\n"
    "v = torch.zeros(3, requires_grad=True)\n"
    "v.detach()[1:].add_(2.0)\n"
    "with torch.no_grad():\n"
    "    v[0] = -1.0\n"
    "z = v * 3\n"
    "(y.sum() + z.sum()).backward()\n", NULL);
  const double w_values[] = { 1.5, 4, 1.5, 0, 8, 14 };
  assert_leaf_read (record, "w", "y", w_values);
  const double v_values[] = { -1, 2, 2 };
  assert_leaf_read (record, "v", "z", v_values);
}

/* Ops that write in place move the version on after writing, so the
 * leaf's value is the one written: index_put_ (x[idx] = v), scatter_,
 * index_copy_ and out=. */
static void
test_indexed_writes (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "p = torch.zeros(2, 3, requires_grad=True)\n"
    "s = torch.zeros(2, 3, requires_grad=True)\n"
    "c = torch.zeros(2, 3, requires_grad=True)\n"
    "o = torch.zeros(3, requires_grad=True)\n"
    "with torch.no_grad():\n"
    "    p[torch.tensor([0]), torch.tensor([1])] = 9.0\n"
    "    s.scatter_(1, torch.tensor([[2], [0]]), torch.tensor([[5.0], [6.0]]))\n"
    "    c.index_copy_(0, torch.tensor([1]), torch.tensor([[1.0, 2.0, 3.0]]))\n"
    "    torch.add(torch.ones(3), torch.ones(3), out=o)\n"
    "yp = p * 3\n"
    "ys = s * 3\n"
    "yc = c * 3\n"
    "yo = o * 3\n"
    "(yp.sum() + ys.sum() + yc.sum() + yo.sum()).backward()\n", NULL);
  assert_leaf_read (record, "p", "yp", (const double[]) { 0, 9, 0, 0, 0, 0 });
  assert_leaf_read (record, "s", "ys", (const double[]) { 0, 0, 5, 6, 0, 0 });
  assert_leaf_read (record, "c", "yc", (const double[]) { 0, 0, 0, 1, 2, 3 });
  assert_leaf_read (record, "o", "yo", (const double[]) { 2, 2, 2 });
}

/* F.embedding(max_norm=) renormalizes the rows it reads in place, under
 * no_grad, before reading them: the weight the record shows is the one
 * the lookup read (its rows are the output's). */
static void
test_embedding_renorm (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("init.py",
    "import torch\n"
    "from torch import nn\n"
    "emb = nn.Embedding(2, 2, max_norm=1.0)\n"
    "with torch.no_grad():\n"
    "    emb.weight.copy_(torch.tensor([[3.0, 4.0], [0.3, 0.4]]))\n"
    "emb.weight\n"
    "e = emb(torch.tensor([0, 1]))\n"
    "e.sum().backward()\n", NULL);
  const CrRecordTensor *weight = tensor_named (record, "emb.weight");
  const CrRecordTensor *e = tensor_named (record, "e");
  g_assert_nonnull (weight->value);
  g_assert_nonnull (e->value);
  g_assert_cmpint (weight->value->n_values, ==, 4);
  g_assert_cmpint (e->value->n_values, ==, 4);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (weight->value->values[i], ==, e->value->values[i]);
  g_assert_cmpfloat_with_epsilon (weight->value->values[0], 0.6, 1e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-leaf-init/data-fill", test_data_fill);
  g_test_add_func ("/record-leaf-init/no-grad-copy", test_no_grad_copy);
  g_test_add_func ("/record-leaf-init/nn-init", test_nn_init);
  g_test_add_func ("/record-leaf-init/data-normal-then-scale", test_data_normal_then_scale);
  g_test_add_func ("/record-leaf-init/module-parameters", test_module_parameters);
  g_test_add_func ("/record-leaf-init/change-after-read", test_change_after_read);
  g_test_add_func ("/record-leaf-init/partial-writes", test_partial_writes);
  g_test_add_func ("/record-leaf-init/indexed-writes", test_indexed_writes);
  g_test_add_func ("/record-leaf-init/embedding-renorm", test_embedding_renorm);
  return g_test_run ();
}
