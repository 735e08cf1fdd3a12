/* test-record-forward.c — the forward pass told op by op
 * (cr-record-forward.h) on every example and on small scripts: the ops of a
 * backward call come inputs first and are the ops its graph holds; every
 * value a sentence shows is the record's value of that tensor; every element
 * worked out adds up (a × b = c with the record's a, b and c); the micrograd
 * lecture's own sentence, word for word. */
#include "cr-interp.h"
#include "record-test-util.h"
#include "cr-record-forward.h"
#include "cr-record-text.h"

#include <math.h>
#include <string.h>

/* The record of source, named name; it may fail part way. */
static CrRunRecord *
record_source (const char *source,
               const char *name)
{
  gboolean ran;
  return record_test_run (name, source, &ran);
}

static const CrRecordTensor *
tensor_of (const CrRunRecord *record,
           int                index)
{
  return index >= 0 && (guint) index < record->tensors->len ? record->tensors->pdata[index] : NULL;
}

static double
parse_number (const char *text)
{
  while (*text == ' ' || *text == '(')
    text++;
  return g_ascii_strtod (text, NULL);
}

static gboolean
close_to (double a,
          double b)
{
  return fabs (a - b) <= 1e-3 + 2e-3 * fabs (b);
}

/* "... = x OP y = r": r is x OP y, to the four digits shown (a sum of
 * more terms, or names, are left to the check against the record). */
static void
check_arithmetic (const char *example)
{
  g_auto (GStrv) parts = g_strsplit (example, " = ", -1);
  guint n = g_strv_length (parts);
  g_assert_cmpuint (n, >=, 2);
  const char *numbers = parts[n - 2];
  double r = parse_number (parts[n - 1]);
  for (const char *p = numbers; *p; p++)
    if (g_ascii_isalpha (*p) || (*p & 0x80 && !g_str_has_prefix (p, "×")))
      return;
  /* A mean: "(a + b) / 2". */
  const char *divided = strstr (numbers, ") / ");
  if (divided && numbers[0] == '(')
    {
      double sum = 0;
      g_auto (GStrv) terms = g_strsplit (numbers + 1, " + ", -1);
      for (guint i = 0; terms[i]; i++)
        sum += parse_number (terms[i]);
      double want = sum / parse_number (divided + 4);
      if (!close_to (r, want))
        g_error ("%s: the mean is %g, not %g", example, want, r);
      return;
    }
  static const char *const glyphs[] = { " × ", " + ", " - ", " / " };
  for (guint g = 0; g < G_N_ELEMENTS (glyphs); g++)
    {
      const char *op = strstr (numbers, glyphs[g]);
      if (!op)
        continue;
      if (strstr (op + 1, " + ") || strstr (op + 1, " × "))
        return;
      double x = parse_number (numbers), y = parse_number (op + strlen (glyphs[g]));
      double want = g == 0 ? x * y : g == 1 ? x + y : g == 2 ? x - y : x / y;
      if (!close_to (r, want))
        g_error ("%s: %g%s%g is %g, not %g", example, x, glyphs[g], y, want, r);
      return;
    }
}

/* Every forward op of every backward call (and of the whole run) of record. */
static void
check_record (const CrRunRecord *record,
              const char        *name)
{
  for (int b = -1; b < (int) record->backwards->len; b++)
    {
      g_autoptr (GArray) ops = cr_record_forward_ops (record, b);
      g_autofree guint8 *seen = g_new0 (guint8, record->ops->len + 1);
      for (guint i = 0; i < ops->len; i++)
        {
          int index = g_array_index (ops, int, i);
          const CrRecordOp *op = record->ops->pdata[index];
          /* Inputs first: every op an input came from is told before. */
          for (guint k = 0; op->inputs && k < op->inputs->len; k++)
            {
              const CrRecordTensor *in = tensor_of (record, g_array_index (op->inputs, int, k));
              if (in && in->origin == CR_RECORD_TENSOR_RESULT && in->op >= 0 && in->op != index)
                if (b < 0 || seen[in->op] == 0)
                  g_assert_cmpint (seen[in->op], ==, 1);
            }
          seen[index] = 1;

          g_autoptr (CrForwardText) text = cr_forward_text_new (record, index);
          g_assert_nonnull (text);
          g_assert_nonnull (text->expression);
          g_assert_nonnull (text->sentence);
          g_assert_nonnull (text->equation);
          const CrRecordTensor *out = op->outputs && op->outputs->len > 0
                                      ? tensor_of (record, g_array_index (op->outputs, int, 0)) : NULL;
          g_assert_nonnull (out);
          /* The value shown is the record's. */
          if (out->value && out->value->numel == 1 && out->value->n_values == 1)
            {
              const char *last = g_strrstr (text->equation, " = ");
              g_assert_nonnull (last);
              double shown = parse_number (last + 3);
              if (!close_to (shown, out->value->values[0]))
                g_error ("%s: %s shows %g, the record has %g", name, text->equation, shown,
                         out->value->values[0]);
            }
          else if (out->value && out->value->n_values >= out->value->numel && out->value->numel <= 12)
            {
              g_autofree char *brief = cr_record_value_brief (out->value, 12);
              g_assert_true (g_str_has_suffix (text->equation, brief));
            }
          if (text->example)
            {
              check_arithmetic (text->example);
              /* Its result is the record's, at the element it names. */
              const char *last = g_strrstr (text->example, " = ");
              double shown = parse_number (last + 3);
              gboolean found = FALSE;
              for (gint64 e = 0; out->value && e < out->value->n_values && !found; e++)
                found = close_to (shown, out->value->values[e]);
              if (!found)
                g_error ("%s: %s: no element of the record's value is %g", name, text->example, shown);
            }
        }
    }
}

static void
test_examples (gconstpointer data)
{
  g_autoptr (GDir) dir = g_dir_open (data, 0, NULL);
  g_assert_nonnull (dir);
  guint n = 0;
  for (const char *entry; (entry = g_dir_read_name (dir));)
    {
      if (!g_str_has_suffix (entry, ".py"))
        continue;
      g_autofree char *path = g_build_filename (data, entry, NULL);
      g_autofree char *source = NULL;
      g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
      g_autoptr (CrRunRecord) record = record_source (source, entry);
      check_record (record, entry);
      n++;
    }
  g_assert_cmpuint (n, >=, 14);
}

/* The lecture's neuron-free first example, in its words. */
static void
test_micrograd_sentence (void)
{
  g_autoptr (CrRunRecord) record = record_source (
    "import torch\n"
    "a = torch.tensor(2.0, requires_grad=True)\n"
    "b = torch.tensor(-3.0, requires_grad=True)\n"
    "c = a * b\n"
    "d = c + 10.0\n"
    "e = d.relu()\n"
    "e.backward()\n", "lecture.py");
  g_autoptr (GArray) ops = cr_record_forward_ops (record, 0);
  g_assert_cmpuint (ops->len, ==, 3);
  g_autoptr (CrForwardText) c = cr_forward_text_new (record, g_array_index (ops, int, 0));
  g_assert_cmpstr (c->expression, ==, "c = a * b");
  g_assert_cmpstr (c->equation, ==, "c = a * b = 2 × (-3) = -6");
  g_assert_cmpstr (c->sentence, ==, "multiplies a by b");
  g_autoptr (CrForwardText) d = cr_forward_text_new (record, g_array_index (ops, int, 1));
  g_assert_cmpstr (d->equation, ==, "d = c + 10.0 = (-6) + 10.0 = 4");
  g_assert_cmpstr (d->sentence, ==, "adds 10 to c");
  g_autofree char *trace = cr_record_trace_forward (record, ops, "forward");
  g_assert_nonnull (strstr (trace, "  op 3 of 3  ReluBackward0  (e = d.relu(), line 6)\n"
                                   "    e = d.relu(): keeps what is positive in d and sets the rest to 0\n"
                                   "    e = d.relu() = relu(4) = 4\n"));
}

/* Tensors: one element worked out; a matrix product's row times column;
 * a training loop's call has its own iteration's ops only. */
static void
test_tensors (void)
{
  g_autoptr (CrRunRecord) record = record_source (
    "import torch\n"
    "x = torch.tensor([[1., 2.], [3., 4.]])\n"
    "w = torch.tensor([[0.5, -1.], [2., 1.]], requires_grad=True)\n"
    "for i in range(2):\n"
    "    y = x @ w\n"
    "    h = torch.relu(y - 3)\n"
    "    L = h.mean()\n"
    "    L.backward()\n", "loop.py");
  g_assert_cmpuint (record->backwards->len, ==, 2);
  g_autoptr (GArray) ops = cr_record_forward_ops (record, 1);
  g_assert_cmpuint (ops->len, ==, 4);
  for (guint i = 0; i < ops->len; i++)
    {
      const CrRecordOp *op = record->ops->pdata[g_array_index (ops, int, i)];
      g_assert_cmpuint (op->iteration, ==, 2);
    }
  g_autoptr (CrForwardText) mm = cr_forward_text_new (record, g_array_index (ops, int, 0));
  g_assert_cmpstr (mm->example, ==, "y₂[1,1] = x[1,:] · w[:,1] = 3×(-1) + 4×1 = 1");
  g_autoptr (CrForwardText) relu = cr_forward_text_new (record, g_array_index (ops, int, 2));
  g_assert_nonnull (strstr (relu->sentence, "element by element (2×2)"));
  g_autoptr (CrForwardText) mean = cr_forward_text_new (record, g_array_index (ops, int, 3));
  g_assert_true (g_str_has_prefix (mean->example, "L₂ = ("));
  check_record (record, "loop.py");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_autofree char *examples = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", NULL);
  g_test_add_data_func ("/record-forward/examples", examples, test_examples);
  g_test_add_func ("/record-forward/micrograd", test_micrograd_sentence);
  g_test_add_func ("/record-forward/tensors", test_tensors);
  return g_test_run ();
}
