/* test-record-trace-run.c — --trace-backward on scripts run through the
 * interpreter: an interpreter that traces without being asked to record
 * still prints every call (the trace is printed from the run record), a
 * long run prints the numbers of its last call as of its first while the
 * record stays within its value budget, and the names the trace gives.
 * Every number was checked against PyTorch 1.13 running the same script. */
#include "cr-interp.h"

#include <string.h>

static void
collect_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  if (!is_stderr)
    g_string_append (user_data, text);
}

/* Runs source (as "demo.py") with --trace-backward's options, record_backward
 * as given; returns what it printed; *out_record (when not NULL) its record. */
static char *
trace_script (const char   *source,
              gboolean      record_backward,
              CrRunRecord **out_record)
{
  GString *out = g_string_new (NULL);
  CrInterpOptions o = { 0 };
  o.output = collect_output;
  o.output_data = out;
  o.trace_backward = TRUE;
  o.record_backward = record_backward;
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse (source, -1, "demo.py", NULL, &error);
  g_assert_no_error (error);
  CrInterp *interp = cr_interp_new (&o);
  CrScriptError *script_error = NULL;
  if (!cr_interp_run (interp, module, &script_error))
    g_error ("%s", script_error->traceback);
  if (out_record)
    *out_record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return g_string_free (out, FALSE);
}

static guint
count (const char *text,
       const char *needle)
{
  guint n = 0;
  for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* trace_backward alone: every call is traced. */
static void
test_trace_without_record (void)
{
  g_autofree char *out = trace_script ("import torch\n"
                                       "x = torch.tensor([1., 2.], requires_grad=True)\n"
                                       "y = (x * x).sum()\n"
                                       "y.backward()\n"
                                       "print(x.grad)\n", FALSE, NULL);
  g_assert_nonnull (strstr (out, "backward #1: y.backward() at line 4\n"));
  g_assert_nonnull (strstr (out, "∂y/∂x = "));
  g_assert_true (g_str_has_suffix (out, "tensor([2., 4.])\n"));
}

/* 200 calls on 64×64 tensors: far more values than the record keeps (4M);
 * the last call is told all the same (its shape and range, as the card
 * tells a big tensor), and the record keeps only what its budget allows. */
static void
test_trace_budget (void)
{
  CrRunRecord *record = NULL;
  g_autofree char *out = trace_script ("import torch\n"
                                       "w = torch.ones(64, 64, requires_grad=True)\n"
                                       "x = torch.full((64, 64), 2.)\n"
                                       "for i in range(200):\n"
                                       "    loss = (w * x).sum()\n"
                                       "    loss.backward()\n", TRUE, &record);
  g_assert_cmpuint (count (out, "backward #"), ==, 200);
  /* Each call tells what it did to w.grad. */
  g_assert_cmpuint (count (out, "    w.grad: "), ==, 200);
  /* w.grad after the 200th call: 200 × 2 everywhere. */
  const char *last = strstr (out, "backward #200:");
  g_assert_nonnull (last);
  g_assert_nonnull (strstr (last, "    w.grad: 64×64 in [398, 398] + 64×64 in [2, 2] = 64×64 in [400, 400]\n"));

  g_assert_nonnull (record);
  g_assert_cmpuint (record->backwards->len, ==, 200);
  const CrRecordBackward *bw = g_ptr_array_index (record->backwards, 199);
  const CrRecordStep *acc = g_ptr_array_index (bw->steps, bw->steps->len - 1);
  g_assert_cmpint (acc->kind, ==, CR_RECORD_STEP_ACCUMULATE);
  g_assert_cmpint (acc->grad_after->numel, ==, 4096);
  g_assert_cmpint (acc->grad_after->n_values, ==, 0);
  g_assert_cmpfloat (acc->grad_after->max, ==, 400);
  const CrRecordBackward *first = g_ptr_array_index (record->backwards, 0);
  const CrRecordStep *first_acc = g_ptr_array_index (first->steps, first->steps->len - 1);
  g_assert_cmpint (first_acc->grad_after->n_values, ==, 4096);
  cr_run_record_unref (record);
}

/* In a loop the root is called by its label, as every other tensor: the
 * gradients of y bound in iteration 2 are ∂y₂/∂... */
static void
test_trace_root_label (void)
{
  g_autofree char *out = trace_script ("import torch\n"
                                       "x = torch.tensor(3., requires_grad=True)\n"
                                       "for i in range(2):\n"
                                       "    y = x * x\n"
                                       "    y.backward()\n", FALSE, NULL);
  g_assert_nonnull (strstr (out, "    ∂y₁/∂y₁ = 1\n"));
  g_assert_nonnull (strstr (out, "    ∂y₂/∂y₂ = 1\n"));
  g_assert_nonnull (strstr (out, "    ∂y₂/∂x = ∂y₂/∂y₂ × ∂y₂/∂x = 1 × 3 = 3\n"));
  g_assert_null (strstr (out, "∂y/"));
}

/* A 0-d input broadcast to 2×3: its gradient is the product summed over
 * every dim (PyTorch: s.grad is tensor(21.)). */
static void
test_trace_scalar_reduction (void)
{
  g_autofree char *out = trace_script ("import torch\n"
                                       "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])\n"
                                       "s = torch.tensor(2., requires_grad=True)\n"
                                       "y = (x * s).sum()\n"
                                       "y.backward()\n", FALSE, NULL);
  g_assert_nonnull (strstr (out, "    Σ summed over every dim to the scalar s = 21\n"));
  g_assert_null (strstr (out, "shape scalar"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-trace-run/without-record", test_trace_without_record);
  g_test_add_func ("/record-trace-run/budget", test_trace_budget);
  g_test_add_func ("/record-trace-run/root-label", test_trace_root_label);
  g_test_add_func ("/record-trace-run/scalar-reduction", test_trace_scalar_reduction);
  return g_test_run ();
}
