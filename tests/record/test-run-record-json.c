/* test-run-record-json.c — a hand-built run record written as JSON: the
 * schema and version, strings escaped (quotes, control characters, bytes
 * that are not UTF-8), numbers that read back to the same value, NaN and the
 * infinities as strings, spans as objects or null, and the same text every
 * time. The JSON of real runs is checked by check-record. */
#include "cr-run-record-json.h"

#include <math.h>
#include <string.h>

static CrTensorSnapshot *
snapshot_of (const double *values,
             int           n,
             const char   *dtype)
{
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->ndim = 1;
  s->shape[0] = n;
  s->numel = n;
  s->n_values = n;
  s->values = g_memdup2 (values, sizeof (double) * (gsize) n);
  s->dtype = g_strdup (dtype);
  s->device = g_strdup ("cpu");
  s->min = s->max = s->mean = s->std = NAN;
  return s;
}

static CrRunRecord *
sample_record (void)
{
  CrRunRecord *record = cr_run_record_new ("demo \"1\".py", "y = x * b\n\tprint(y)\n");
  CrRecordTensor *x = cr_run_record_add_tensor (record);
  x->name = g_strdup ("x");
  x->label = g_strdup ("y₃ \x01\x7f");
  x->iteration = 3;
  x->origin = CR_RECORD_TENSOR_LEAF;
  x->span = (CrSpan) { 1, 5, 1, 10 };
  x->ndim = 2;
  x->shape[0] = 2;
  x->shape[1] = 3;
  x->dtype = g_strdup ("torch.float32");
  x->device = g_strdup ("cpu");
  x->requires_grad = TRUE;
  const double values[] = { (float) 0.1, NAN, INFINITY, -INFINITY, -0.0, 1e-30 };
  x->value = snapshot_of (values, 6, "torch.float32");
  x->value->std = 0.1;
  x->loop_depth = 2;
  x->loop_path[0] = 2;
  x->loop_path[1] = 3;

  CrRecordTensor *b = cr_run_record_add_tensor (record);
  b->name = g_strdup ("bad \xff byte");

  CrRecordOp *op = cr_run_record_add_op (record);
  op->grad_fn = g_strdup ("MulBackward0");
  int inputs[] = { 0, 1 };
  g_array_append_vals (op->inputs, inputs, 2);
  CrRecordSaved *saved = cr_record_op_add_saved (op);
  saved->name = g_strdup ("self");
  saved->tensor = 0;

  CrRecordBackward *backward = cr_run_record_add_backward (record);
  backward->title = g_strdup ("y.backward() · line 2");
  CrRecordStep *step = cr_record_backward_add_step (backward);
  step->op = 0;
  CrRecordStepInput *in = cr_record_step_add_input (step);
  in->reduction = g_new0 (CrRecordReduction, 1);
  in->reduction->n_dims = 1;
  in->reduction->dims[0] = 0;
  in->reduction->from_ndim = 2;
  in->reduction->from_shape[0] = 2;
  in->reduction->from_shape[1] = 3;
  in->reduction->to_ndim = 1;
  in->reduction->to_shape[0] = 3;
  CrRecordHookCall *hook = cr_record_step_add_hook (step);
  hook->kind = CR_RECORD_HOOK_RETAIN_GRAD;
  const double d[] = { 0.1 };
  hook->after = snapshot_of (d, 1, "torch.float64");

  CrRecordError *error = cr_run_record_add_error (record);
  error->type = g_strdup ("RuntimeError");
  error->message = g_strdup ("line one\nline two");
  return record;
}

static void
test_json_text (void)
{
  g_autoptr (CrRunRecord) record = sample_record ();
  gsize length = 0;
  g_autofree char *json = cr_run_record_to_json (record, &length);
  g_assert_cmpuint (length, ==, strlen (json));
  g_assert_true (g_utf8_validate (json, -1, NULL));
  g_assert_true (g_str_has_prefix (json, "{\n  \"schema\": \"chainrule-run-record\",\n"));
  g_autofree char *version = g_strdup_printf ("\n  \"version\": %d,\n", CR_RUN_RECORD_SCHEMA_VERSION);
  g_assert_nonnull (strstr (json, version));
  g_assert_true (g_str_has_suffix (json, "\n}\n"));

  /* Strings: quotes, tabs, newlines, control characters, UTF-8 kept,
   * a byte that is not UTF-8 replaced. */
  g_assert_nonnull (strstr (json, "\"filename\": \"demo \\\"1\\\".py\""));
  g_assert_nonnull (strstr (json, "\"source\": \"y = x * b\\n\\tprint(y)\\n\""));
  g_assert_nonnull (strstr (json, "\"label\": \"y₃ \\u0001\\u007f\""));
  g_assert_nonnull (strstr (json, "\"name\": \"bad \xef\xbf\xbd byte\""));
  g_assert_nonnull (strstr (json, "\"message\": \"line one\\nline two\""));
  g_assert_nonnull (strstr (json, "\"name\": null"));

  /* Numbers: float32 values as the shortest text of the float, doubles of
   * the double; NaN and the infinities as strings. */
  g_assert_nonnull (strstr (json, "\"values\": [0.1, \"nan\", \"inf\", \"-inf\", -0, 1e-30]"));
  g_assert_nonnull (strstr (json, "\"std\": 0.1}"));
  g_assert_nonnull (strstr (json, "\"values\": [0.1]"));

  /* Spans, shapes, enums, indices. */
  g_assert_nonnull (strstr (json, "\"span\": {\"line\": 1, \"column\": 5, \"end_line\": 1, \"end_column\": 10}"));
  g_assert_nonnull (strstr (json, "\"span\": null"));
  g_assert_nonnull (strstr (json, "\"shape\": [2, 3]"));
  g_assert_nonnull (strstr (json, "\"origin\": \"leaf\""));
  g_assert_nonnull (strstr (json, "\"inputs\": [0, 1]"));
  g_assert_nonnull (strstr (json, "\"outputs\": []"));
  g_assert_nonnull (strstr (json, "\"freed_backward\": -1"));
  g_assert_nonnull (strstr (json, "\"reduction\": {\"dims\": [0], \"from_shape\": [2, 3], \"to_shape\": [3]}"));
  g_assert_nonnull (strstr (json, "\"kind\": \"retain_grad\""));
  g_assert_nonnull (strstr (json, "\"module_calls\": []"));
  /* Loop paths: the tensor's, and an op's outside any loop. */
  g_assert_nonnull (strstr (json, "\"loop_path\": [2, 3]"));
  g_assert_nonnull (strstr (json, "\"loop_path\": []"));

  /* The same record gives the same text. */
  g_autofree char *again = cr_run_record_to_json (record, NULL);
  g_assert_cmpstr (json, ==, again);
}

/* Keys come in the header's order: the first keys of the record. */
static void
test_json_key_order (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new (NULL, NULL);
  g_autofree char *json = cr_run_record_to_json (record, NULL);
  g_autofree char *want = g_strdup_printf (
                   "{\n"
                   "  \"schema\": \"chainrule-run-record\",\n"
                   "  \"version\": %d,\n"
                   "  \"filename\": null,\n"
                   "  \"source\": null,\n"
                   "  \"tensors\": [],\n"
                   "  \"ops\": [],\n"
                   "  \"module_calls\": [],\n"
                   "  \"regions\": [],\n"
                   "  \"backwards\": [],\n"
                   "  \"errors\": [],\n"
                   "  \"truncated\": false,\n"
                   "  \"findings\": [],\n"
                   "  \"updates\": [],\n"
                   "  \"printed\": [],\n"
                   "  \"cells\": []\n"
                   "}\n", CR_RUN_RECORD_SCHEMA_VERSION);
  g_assert_cmpstr (json, ==, want);
}

/* A record cut short at CR_RUN_RECORD_MAX_ITEMS says so, after its errors. */
static void
test_json_truncated (void)
{
  g_autoptr (CrRunRecord) record = cr_run_record_new (NULL, NULL);
  record->truncated = TRUE;
  g_autofree char *json = cr_run_record_to_json (record, NULL);
  g_assert_true (g_str_has_suffix (json, "  \"errors\": [],\n  \"truncated\": true,\n  \"findings\": [],\n  \"updates\": [],\n  \"printed\": [],\n  \"cells\": []\n}\n"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record/json/text", test_json_text);
  g_test_add_func ("/record/json/key-order", test_json_key_order);
  g_test_add_func ("/record/json/truncated", test_json_truncated);
  return g_test_run ();
}
