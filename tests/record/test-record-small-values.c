/* test-record-small-values.c — the record keeps the values of small tensors
 * the script never held: results made inside a native (F.l1_loss's
 * subtraction, an LSTM's gates) or by a double backward, and an input that
 * needs no gradient and that no op saved (l1_loss's target), which the
 * scalar view of one op reads; and big tensors spending the value budget
 * leave the small ones a part of it. */
#include "record-test-util.h"

#include <math.h>
#include <string.h>

/* The op whose grad_fn is name, the first one recorded. */
static const CrRecordOp *
op_named (const CrRunRecord *record,
          const char        *name)
{
  for (guint i = 0; i < record->ops->len; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      if (g_strcmp0 (op->grad_fn, name) == 0)
        return op;
    }
  g_error ("no %s in the record", name);
  return NULL;
}

static const CrRecordTensor *
tensor_at (const CrRunRecord *record,
           int                id)
{
  g_assert_cmpint (id, >=, 0);
  g_assert_cmpuint ((guint) id, <, record->tensors->len);
  return g_ptr_array_index (record->tensors, id);
}

/* Every result of at most 64 elements keeps all its values; returns how
 * many such results the record holds. */
static guint
assert_small_results_kept (const CrRunRecord *record)
{
  guint results = 0;
  for (guint i = 0; i < record->tensors->len; i++)
    {
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, i);
      gint64 numel = 1;
      for (int d = 0; d < t->ndim; d++)
        numel *= t->shape[d];
      if (t->origin != CR_RECORD_TENSOR_RESULT || numel > 64)
        continue;
      if (!t->value || t->value->n_values != numel)
        g_error ("result %s (%u) keeps %" G_GINT64_FORMAT " of its %" G_GINT64_FORMAT " values",
                 t->label, i, t->value ? t->value->n_values : 0, numel);
      results++;
    }
  return results;
}

/* F.l1_loss(a, tgt) is abs(a - tgt).mean() inside the native: the
 * subtraction's output is a result the script never held, and tgt reaches
 * it through no edge and is saved by no op. */
static void
test_native_result_and_target (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("small.py",
    "import torch\n"
    "import torch.nn.functional as F\n"
    "a = torch.tensor([1.0, -2.0, 3.5], requires_grad=True)\n"
    "tgt = torch.tensor([0.5, 0.5, 0.5])\n"
    "loss = F.l1_loss(a, tgt)\n"
    "loss.backward()\n", NULL);
  const CrRecordOp *sub = op_named (record, "SubBackward0");
  g_assert_cmpuint (sub->inputs->len, ==, 2);
  const CrRecordTensor *target = tensor_at (record, g_array_index (sub->inputs, int, 1));
  g_assert_cmpstr (target->label, ==, "tgt");
  g_assert_nonnull (target->value);
  g_assert_cmpint (target->value->n_values, ==, 3);
  g_assert_cmpfloat (target->value->values[2], ==, 0.5);
  const CrRecordTensor *diff = tensor_at (record, g_array_index (sub->outputs, int, 0));
  g_assert_null (diff->name);
  g_assert_nonnull (diff->value);
  const double expected[] = { 0.5, -2.5, 3.0 };
  g_assert_cmpint (diff->value->n_values, ==, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (diff->value->values[i], ==, expected[i]);
  assert_small_results_kept (record);
}

/* torch.autograd.grad(create_graph=True) makes the backward formulas' ops
 * while the engine runs: their results are in no variable. */
static void
test_double_backward (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("small.py",
    "import torch\n"
    "x = torch.tensor([1.0, 2.0, -1.5], requires_grad=True)\n"
    "y = (x ** 3).sum()\n"
    "g, = torch.autograd.grad(y, x, create_graph=True)\n"
    "(g * g).sum().backward()\n", NULL);
  g_assert_cmpuint (assert_small_results_kept (record), >, 4);
  /* PowBackward0's formula 3 * x**2 * grad: its pow is the script's
   * nowhere; its values are x squared. */
  gboolean found = FALSE;
  for (guint i = 0; i < record->ops->len && !found; i++)
    {
      const CrRecordOp *op = g_ptr_array_index (record->ops, i);
      const CrRecordTensor *out = op->outputs->len ? tensor_at (record, g_array_index (op->outputs, int, 0)) : NULL;
      if (g_strcmp0 (op->grad_fn, "PowBackward0") != 0 || !out || out->name || !out->value
          || out->value->numel != 3 || out->value->values[0] != 1.0)
        continue;
      found = out->value->values[1] == 4.0 && out->value->values[2] == 2.25;
    }
  g_assert_true (found);
}

/* An LSTM cell splits its gates into views of one tensor (unsafe_split):
 * each piece keeps the values it viewed when it was made. */
static void
test_lstm_gates (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("small.py",
    "import torch\n"
    "from torch import nn\n"
    "torch.manual_seed(0)\n"
    "cell = nn.LSTMCell(3, 4)\n"
    "x = torch.randn(2, 3)\n"
    "h, c = cell(x)\n"
    "h, c = cell(x, (h, c))\n"
    "(h.sum() + c.sum()).backward()\n", NULL);
  g_assert_cmpuint (assert_small_results_kept (record), >, 8);
}

/* Big tensors that spend the shared value budget (4M values; a snapshot
 * keeps at most 4096 of a tensor's, so 1100 results of 4160 elements)
 * leave the small results after them their values: the product of two 2x2
 * matrices at the end keeps its inputs' and its own. */
static void
test_budget_reserve (void)
{
  g_autoptr (CrRunRecord) record = record_test_run ("budget.py",
    "import torch\n"
    "w = torch.ones(64, 65, requires_grad=True)\n"
    "for step in range(1100):\n"
    "    w = w * 1\n"
    "a = torch.ones(2, 2, requires_grad=True)\n"
    "c = a @ torch.full((2, 2), 3.0)\n", NULL);
  const CrRecordOp *mm = op_named (record, "MmBackward0");
  const CrRecordTensor *out = tensor_at (record, g_array_index (mm->outputs, int, 0));
  for (guint i = 0; i < mm->inputs->len; i++)
    {
      const CrRecordTensor *in = tensor_at (record, g_array_index (mm->inputs, int, i));
      g_assert_nonnull (in->value);
      g_assert_cmpint (in->value->n_values, ==, 4);
    }
  g_assert_nonnull (out->value);
  g_assert_cmpint (out->value->n_values, ==, 4);
  g_assert_cmpfloat (out->value->values[3], ==, 6.0);
  /* The big ones did spend what they may: the last keeps none. */
  const CrRecordOp *last_mul = NULL;
  for (guint i = 0; i < record->ops->len; i++)
    if (g_strcmp0 (((const CrRecordOp *) g_ptr_array_index (record->ops, i))->grad_fn, "MulBackward0") == 0)
      last_mul = g_ptr_array_index (record->ops, i);
  const CrRecordTensor *big = tensor_at (record, g_array_index (last_mul->outputs, int, 0));
  g_assert_cmpint (big->value->n_values, <, big->value->numel);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-small-values/native-result-and-target", test_native_result_and_target);
  g_test_add_func ("/record-small-values/double-backward", test_double_backward);
  g_test_add_func ("/record-small-values/lstm-gates", test_lstm_gates);
  g_test_add_func ("/record-small-values/budget-reserve", test_budget_reserve);
  return g_test_run ();
}
