/* test-expression.c — expression mode: a formula's variables, its errors, the
 * script it becomes (run by the interpreter, its gradients checked by hand
 * and by finite differences, and by PyTorch where /usr/bin/python3 has it),
 * and the panel (under xvfb-run; skipped without a display): two binaries,
 * `expression` without GTK and `expression-panel` (see below).
 *
 * CR_EXPRESSION_PREVIEW=1 shows the panel in a window instead, for a look. */
#include "cr-expression.h"

#include "cr-interp.h"
#include "cr-pyformat.h"

#include <math.h>
#include <string.h>

/* Built twice: without CR_TEST_PANEL the language alone (no GTK: it runs in
 * every build, build-asan included), with it the panel. */
#ifdef CR_TEST_PANEL
#include "cr-expression-panel.h"

#include <adwaita.h>

static gboolean have_display;
#endif

/* ---- helpers --------------------------------------------------------- */

#ifndef CR_TEST_PANEL
static void
assert_variables (const char *formula,
                  const char *expected)   /* space-separated */
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = cr_expression_variables (formula, &error);
  g_assert_no_error (error);
  g_assert_nonnull (names);
  g_autoptr (GString) joined = g_string_new (NULL);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (joined, "%s%s", i ? " " : "", (char *) g_ptr_array_index (names, i));
  g_assert_cmpstr (joined->str, ==, expected);
}

static void
assert_error (const char *formula,
              int         code,
              const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = cr_expression_variables (formula, &error);
  g_assert_null (names);
  g_assert_error (error, CR_LANG_ERROR, code);
  if (strstr (error->message, fragment) == NULL)
    g_error ("%s: message '%s' lacks '%s'", formula, error->message, fragment);
  /* No script either. */
  g_autofree char *script = cr_expression_to_script (formula, NULL, NULL, 0);
  g_assert_null (script);
}
#endif /* !CR_TEST_PANEL */

static void
collect_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  if (!is_stderr)
    g_string_append (user_data, text);
}

/* Runs script in Chainrule's interpreter; its stdout (new string). */
static char *
run_script (const char *script)
{
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrAstModule) module = cr_parse (script, -1, "<expression>", &span, &error);
  g_assert_no_error (error);
  GString *output = g_string_new (NULL);
  CrInterpOptions options = { .output = collect_output, .output_data = output, .record_backward = TRUE };
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  gboolean ok = cr_interp_run (interp, module, &script_error);
  if (!ok)
    g_error ("script failed:\n%s\n%s", script, script_error->traceback);
  g_autoptr (CrRunRecord) record = cr_interp_get_run_record (interp);
  g_assert_cmpuint (record->backwards->len, ==, 1);
  cr_interp_free (interp);
  return g_string_free (output, FALSE);
}

#ifndef CR_TEST_PANEL
/* The number printed after "label = " in output. */
static double
printed (const char *output,
         const char *label)
{
  g_autofree char *key = g_strdup_printf ("%s = ", label);
  const char *at = strstr (output, key);
  if (at == NULL)
    g_error ("no '%s' in:\n%s", key, output);
  return g_ascii_strtod (at + strlen (key), NULL);
}

static double
run_out (const char   *formula,
         const char  **names,
         const double *values,
         guint         n)
{
  g_autofree char *script = cr_expression_to_script (formula, names, values, n);
  g_assert_nonnull (script);
  g_autofree char *output = run_script (script);
  return printed (output, "out");
}

/* ---- variables and errors ------------------------------------------- */

static void
test_variables (void)
{
  assert_variables ("a*b + c*log(d)", "a b c d");
  assert_variables ("tanh(w1*x1 + w2*x2 + b)", "w1 x1 w2 x2 b");
  /* Order of first use, each once; functions and constants are not variables. */
  assert_variables ("x*x + log(x) + pi*e - sqrt(x)", "x");
  assert_variables ("torch.exp(y) + sigmoid(y*z) / relu(z)", "y z");
  assert_variables ("pow(b, a) + abs(c)", "b a c");
  assert_variables ("  (x - y)**2  ", "x y");
  assert_variables ("2 + 3.5", "");
  assert_variables ("math.pi * r**2", "r");
}

static void
test_errors (void)
{
  assert_error ("a*b +", CR_EXC_SYNTAX_ERROR, "invalid syntax");
  assert_error ("a*b $ c", CR_EXC_SYNTAX_ERROR, "(column 5)");
  assert_error ("  a*b $ c", CR_EXC_SYNTAX_ERROR, "(column 7)");
  assert_error ("log(a", CR_EXC_SYNTAX_ERROR, "never closed");
  assert_error ("", CR_EXC_SYNTAX_ERROR, "Type a formula");
  assert_error ("foo(x) + 1", CR_EXC_NAME_ERROR, "Unknown function 'foo'");
  assert_error ("foo(x) + 1", CR_EXC_NAME_ERROR, "log, log10, log1p, log2, pow, relu, sigmoid");
  assert_error ("torch.matmul(a, b)", CR_EXC_NAME_ERROR, "Unknown function 'matmul'");
  assert_error ("x = 3", CR_EXC_SYNTAX_ERROR, "not an assignment");
  assert_error ("import os", CR_EXC_SYNTAX_ERROR, "not an import");
  assert_error ("a; b", CR_EXC_SYNTAX_ERROR, "one expression");
  assert_error ("lambda x: x", CR_EXC_SYNTAX_ERROR, "Lambdas");
  assert_error ("a.b + 1", CR_EXC_SYNTAX_ERROR, "Attributes");
  assert_error ("a < b", CR_EXC_SYNTAX_ERROR, "Comparisons");
  assert_error ("a % b", CR_EXC_SYNTAX_ERROR, "+ - * / and **");
  assert_error ("log + 1", CR_EXC_SYNTAX_ERROR, "'log' is a function");
  assert_error ("log(a, b)", CR_EXC_TYPE_ERROR, "log() takes 1 argument (2 given)");
  assert_error ("pow(a)", CR_EXC_TYPE_ERROR, "pow() takes 2 arguments (1 given)");
  assert_error ("x + 'a'", CR_EXC_SYNTAX_ERROR, "strings");
  assert_error ("torch * 2", CR_EXC_SYNTAX_ERROR, "'torch' cannot be");
  assert_error ("x[0]", CR_EXC_SYNTAX_ERROR, "Subscripts");
}

static void
test_default_values (void)
{
  g_assert_cmpfloat (cr_expression_default_value ("a*b + c", "a"), ==, 2.0);
  g_assert_cmpfloat (cr_expression_default_value ("a*b + c", "b"), ==, -1.0);
  g_assert_cmpfloat (cr_expression_default_value ("a*b + c", "c"), ==, 0.5);
  /* Inside log and sqrt a default is positive. */
  g_assert_cmpfloat (cr_expression_default_value ("a + log(b)", "b"), ==, 1.0);
  g_assert_cmpfloat (cr_expression_default_value ("x*y*z*sqrt(w*v)", "v"), ==, 2.0);
  /* micrograd's neuron. */
  g_assert_cmpfloat (cr_expression_default_value ("tanh(w1*x1 + w2*x2 + b)", "w1"), ==, -3.0);
  g_assert_cmpfloat (cr_expression_default_value ("tanh(w1*x1 + w2*x2 + b)", "x2"), ==, 0.0);
  g_assert_cmpfloat (cr_expression_default_value ("tanh(w1*x1 + w2*x2 + b)", "b"), >, 6.88);
  g_assert_cmpfloat (cr_expression_default_value ("a*b", "nope"), ==, 1.0);
  g_assert_cmpfloat (cr_expression_default_value ("a*", "a"), ==, 1.0);
}

/* ---- the script ------------------------------------------------------ */

static void
test_script_text (void)
{
  const char *names[] = { "a", "b", "c", "d" };
  const double values[] = { 2.0, -3.0, 10.0, 4.0 };
  g_autofree char *script = cr_expression_to_script ("a*b + c*log(d)", names, values, 4);
  g_assert_cmpstr (script, ==,
                   "# Expression: out = a*b + c*log(d)\n"
                   "import torch\n"
                   "\n"
                   "a = torch.tensor(2.0, requires_grad=True)\n"
                   "b = torch.tensor(-3.0, requires_grad=True)\n"
                   "c = torch.tensor(10.0, requires_grad=True)\n"
                   "d = torch.tensor(4.0, requires_grad=True)\n"
                   "\n"
                   "out = a * b + c * torch.log(d)\n"
                   "out.backward()\n"
                   "\n"
                   "print(f\"out = {out.item():.4f}\")\n"
                   "print(f\"\u2202out/\u2202a = {a.grad.item():.4f}\")\n"
                   "print(f\"\u2202out/\u2202b = {b.grad.item():.4f}\")\n"
                   "print(f\"\u2202out/\u2202c = {c.grad.item():.4f}\")\n"
                   "print(f\"\u2202out/\u2202d = {d.grad.item():.4f}\")\n");

  /* No variables: nothing to differentiate. */
  g_autofree char *none = cr_expression_to_script ("2 + 3", NULL, NULL, 0);
  g_assert_null (none);

  /* A variable called out: the result takes another name. */
  g_autofree char *renamed = cr_expression_to_script ("out * 2", NULL, NULL, 0);
  g_assert_nonnull (strstr (renamed, "\nresult = out * 2\nresult.backward()\n"));
}

/* The `out = ...` line written for formula. */
static char *
body_of (const char *formula)
{
  g_autofree char *script = cr_expression_to_script (formula, NULL, NULL, 0);
  g_assert_nonnull (script);
  const char *at = strstr (script, "\nout = ");
  g_assert_nonnull (at);
  at += strlen ("\nout = ");
  return g_strndup (at, strcspn (at, "\n"));
}

static void
assert_body (const char *formula,
             const char *expected)
{
  g_autofree char *body = body_of (formula);
  g_assert_cmpstr (body, ==, expected);
}

static void
test_precedence (void)
{
  assert_body ("-x**2", "-x ** 2");
  assert_body ("(-x)**2", "(-x) ** 2");
  assert_body ("a-(b-c)", "a - (b - c)");
  assert_body ("(a-b)-c", "a - b - c");
  assert_body ("a/(b*c)", "a / (b * c)");
  assert_body ("(a+b)*c", "(a + b) * c");
  assert_body ("2**-x", "2 ** -x");
  assert_body ("(a**b)**c", "(a ** b) ** c");
  assert_body ("a**b**c", "a ** b ** c");
  assert_body ("pow(a+b, 2)", "(a + b) ** 2");
  assert_body ("-pow(a, 2)", "-a ** 2");
  assert_body ("pow(-a, 2)", "(-a) ** 2");
  assert_body ("pow(a, b)**c", "(a ** b) ** c");
  assert_body ("log(2)*x", "math.log(2) * x");
  assert_body ("sigmoid(1)*x", "torch.sigmoid(torch.tensor(float(1))) * x");
  assert_body ("abs(-2.5)*x", "abs(-2.5) * x");
  assert_body ("pi*r**2", "math.pi * r ** 2");
  assert_body ("torch.tanh(w*x + b)", "torch.tanh(w * x + b)");
  assert_body ("relu(x) + 0.1*x", "torch.relu(x) + 0.1 * x");
}

static void
test_script_runs (void)
{
  /* a*b + c*log(d) by hand: ∂/∂a = b, ∂/∂b = a, ∂/∂c = log d, ∂/∂d = c/d. */
  const char *names[] = { "a", "b", "c", "d" };
  const double values[] = { 2.0, -3.0, 10.0, 4.0 };
  g_autofree char *script = cr_expression_to_script ("a*b + c*log(d)", names, values, 4);
  g_autofree char *output = run_script (script);
  g_assert_cmpfloat_with_epsilon (printed (output, "out"), 2.0 * -3.0 + 10.0 * log (4.0), 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (output, "\u2202out/\u2202a"), -3.0, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (output, "\u2202out/\u2202b"), 2.0, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (output, "\u2202out/\u2202c"), log (4.0), 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (output, "\u2202out/\u2202d"), 10.0 / 4.0, 1e-4);

  /* micrograd's neuron with its default values: out = tanh(n) = 0.7071,
   * dtanh = 1 - out² = 0.5; ∂/∂w1 = x1·0.5, ∂/∂x1 = w1·0.5, ... */
  g_autofree char *neuron = cr_expression_to_script ("tanh(w1*x1 + w2*x2 + b)", NULL, NULL, 0);
  g_autofree char *neuron_output = run_script (neuron);
  g_assert_cmpfloat_with_epsilon (printed (neuron_output, "out"), 0.7071, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (neuron_output, "\u2202out/\u2202w1"), 1.0, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (neuron_output, "\u2202out/\u2202x1"), -1.5, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (neuron_output, "\u2202out/\u2202w2"), 0.0, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (neuron_output, "\u2202out/\u2202x2"), 0.5, 1e-4);
  g_assert_cmpfloat_with_epsilon (printed (neuron_output, "\u2202out/\u2202b"), 0.5, 1e-4);
}

/* Every printed gradient against a central difference of the printed out,
 * for formulas that use every function and every precedence rule. */
static const char *const checked_formulas[] = {
  "a*b + c*log(d)",
  "tanh(w1*x1 + w2*x2 + b)",
  "sigmoid(w*x + b)",
  "(x - y)**2",
  "-x**2 + (a - (b - c)) / (a*b)",
  "exp(a) * sin(b) + cos(a*b) - sqrt(c) + abs(b)",
  "pow(a, 3) + 2**b - log1p(c) + expm1(a/4)",
  "relu(x) + 0.5*relu(-x) + pi*x**2 + e*log(2)",
  "sigmoid(1)*x + torch.tanh(x/y)",
  "tan(a/4) + atan(b) + sinh(c/4)*cosh(a/4) + asinh(b) + erf(c) - erfc(a/2)",
  "exp2(b/2) + log10(c) + log2(d) + log2(8)*a + asinh(1)*b + exp2(3)",
  NULL
};

static void
test_gradients (void)
{
  for (guint f = 0; checked_formulas[f]; f++)
    {
      const char *formula = checked_formulas[f];
      g_autoptr (GPtrArray) variables = cr_expression_variables (formula, NULL);
      g_assert_nonnull (variables);
      guint n = variables->len;
      g_autofree double *values = g_new0 (double, n);
      for (guint i = 0; i < n; i++)
        values[i] = cr_expression_default_value (formula, g_ptr_array_index (variables, i));

      g_autofree char *script = cr_expression_to_script (formula, (const char **) variables->pdata, values, n);
      g_autofree char *output = run_script (script);
      for (guint i = 0; i < n; i++)
        {
          const char *name = g_ptr_array_index (variables, i);
          double h = 0.05, saved = values[i];
          values[i] = saved + h;
          double up = run_out (formula, (const char **) variables->pdata, values, n);
          values[i] = saved - h;
          double down = run_out (formula, (const char **) variables->pdata, values, n);
          values[i] = saved;
          double numeric = (up - down) / (2 * h);
          g_autofree char *label = g_strdup_printf ("\u2202out/\u2202%s", name);
          double analytic = printed (output, label);
          if (fabs (numeric - analytic) > 0.02 * MAX (1.0, fabs (analytic)))
            g_error ("%s: %s = %g, finite difference %g", formula, label, analytic, numeric);
        }
    }
}

/* The script is PyTorch: /usr/bin/python3 with torch prints the same. */
static void
test_pytorch (void)
{
  const char *python = "/usr/bin/python3";
  g_autofree char *probe_err = NULL;
  int status = 1;
  const char *probe[] = { python, "-c", "import torch", NULL };
  if (!g_file_test (python, G_FILE_TEST_IS_EXECUTABLE)
      || !g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                        NULL, &probe_err, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("no PyTorch in /usr/bin/python3");
      return;
    }
  /* One Python process runs them all (importing torch takes seconds), each
   * script in a fresh namespace, with a separator after each. */
  g_autoptr (GString) ours = g_string_new (NULL);
  g_autoptr (GString) program = g_string_new (NULL);
  for (guint f = 0; checked_formulas[f]; f++)
    {
      g_autofree char *script = cr_expression_to_script (checked_formulas[f], NULL, NULL, 0);
      g_autofree char *output = run_script (script);
      g_string_append_printf (ours, "%s---\n", output);
      g_autofree char *literal = cr_py_str_repr (script, strlen (script));
      g_string_append_printf (program, "exec(%s, {})\nprint('---')\n", literal);
    }
  const char *argv[] = { python, "-c", program->str, NULL };
  g_autofree char *theirs = NULL;
  g_autofree char *errors = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &theirs, &errors, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("PyTorch failed:\n%s", errors);
  g_assert_cmpstr (ours->str, ==, theirs);
}

#endif /* !CR_TEST_PANEL */

#ifdef CR_TEST_PANEL
/* ---- the panel ------------------------------------------------------- */

static void
collect_widgets (GtkWidget *widget,
                 GType      type,
                 GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    g_ptr_array_add (found, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    collect_widgets (child, type, found);
}

static GPtrArray *
find_widgets (GtkWidget *root,
              GType      type)
{
  GPtrArray *found = g_ptr_array_new ();
  collect_widgets (root, type, found);
  return found;
}

static void
count_cb (CrExpressionPanel *panel,
          const char        *script,
          gpointer           user_data)
{
  int *count = user_data;
  (*count)++;
  g_assert_cmpstr (script, ==, cr_expression_panel_get_script (panel));
}

static void
open_cb (CrExpressionPanel *panel,
         const char        *script,
         gpointer           user_data)
{
  char **opened = user_data;
  g_free (*opened);
  *opened = g_strdup (script);
}

static gboolean
script_has (CrExpressionPanel *panel,
            const char        *fragment)
{
  const char *script = cr_expression_panel_get_script (panel);
  return script != NULL && strstr (script, fragment) != NULL;
}

static void
test_panel (void)
{
  if (!have_display)
    {
      g_test_skip ("no display");
      return;
    }
  CrExpressionPanel *panel = CR_EXPRESSION_PANEL (g_object_ref_sink (cr_expression_panel_new ()));
  int changes = 0;
  g_autofree char *opened = NULL;
  g_signal_connect (panel, "script-changed", G_CALLBACK (count_cb), &changes);
  g_signal_connect (panel, "open-as-script", G_CALLBACK (open_cb), &opened);

  /* A formula makes one row (a spin button and a slider) per variable. */
  cr_expression_panel_set_formula (panel, "a*b + c*log(d)");
  g_assert_cmpstr (cr_expression_panel_get_formula (panel), ==, "a*b + c*log(d)");
  g_autoptr (GPtrArray) spins = find_widgets (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON);
  g_autoptr (GPtrArray) scales = find_widgets (GTK_WIDGET (panel), GTK_TYPE_SCALE);
  g_assert_cmpuint (spins->len, ==, 4);
  g_assert_cmpuint (scales->len, ==, 4);
  g_assert_cmpfloat (gtk_spin_button_get_value (g_ptr_array_index (spins, 1)), ==, -1.0);
  g_assert_true (script_has (panel, "b = torch.tensor(-1.0, requires_grad=True)"));
  g_assert_true (script_has (panel, "out = a * b + c * torch.log(d)"));

  /* set_value moves the widgets and changes the script. */
  int before = changes;
  g_assert_true (cr_expression_panel_set_value (panel, "b", 4.5));
  g_assert_cmpint (changes, ==, before + 1);
  g_assert_true (script_has (panel, "b = torch.tensor(4.5, requires_grad=True)"));
  g_assert_cmpfloat (gtk_spin_button_get_value (g_ptr_array_index (spins, 1)), ==, 4.5);
  g_assert_cmpfloat (gtk_range_get_value (g_ptr_array_index (scales, 1)), ==, 4.5);
  g_assert_false (cr_expression_panel_set_value (panel, "zz", 1.0));
  /* The same value again is no change. */
  g_assert_true (cr_expression_panel_set_value (panel, "b", 4.5));
  g_assert_cmpint (changes, ==, before + 1);

  /* The slider moves the value; the spin button follows. */
  gtk_range_set_value (g_ptr_array_index (scales, 0), 1.25);
  g_assert_true (script_has (panel, "a = torch.tensor(1.25, requires_grad=True)"));
  g_assert_cmpfloat (gtk_spin_button_get_value (g_ptr_array_index (spins, 0)), ==, 1.25);
  g_assert_cmpint (changes, ==, before + 2);

  /* A value typed beyond the slider's range moves the range. */
  gtk_spin_button_set_value (g_ptr_array_index (spins, 2), 100.0);
  g_assert_true (script_has (panel, "c = torch.tensor(100.0, requires_grad=True)"));
  GtkAdjustment *range = gtk_range_get_adjustment (g_ptr_array_index (scales, 2));
  g_assert_cmpfloat (gtk_adjustment_get_lower (range), <, 100.0);
  g_assert_cmpfloat (gtk_adjustment_get_upper (range), >, 100.0);
  g_assert_cmpfloat (gtk_range_get_value (g_ptr_array_index (scales, 2)), ==, 100.0);

  /* A new formula keeps the values of the variables that remain. */
  cr_expression_panel_set_formula (panel, "b*x + a");
  g_assert_true (script_has (panel, "b = torch.tensor(4.5, requires_grad=True)"));
  g_assert_true (script_has (panel, "a = torch.tensor(1.25, requires_grad=True)"));
  g_assert_true (script_has (panel, "x = torch.tensor(-1.0, requires_grad=True)"));
  g_assert_false (script_has (panel, "c = torch"));
  g_autoptr (GPtrArray) spins2 = find_widgets (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON);
  g_assert_cmpuint (spins2->len, ==, 3);
  /* c comes back with the value it was given. */
  cr_expression_panel_set_formula (panel, "b*x + a + c");
  g_assert_true (script_has (panel, "c = torch.tensor(100.0, requires_grad=True)"));

  /* A formula that does not parse: no script, the rows stay. */
  before = changes;
  cr_expression_panel_set_formula (panel, "b*x +");
  g_assert_cmpint (changes, ==, before + 1);
  g_assert_null (cr_expression_panel_get_script (panel));
  g_autoptr (GPtrArray) spins3 = find_widgets (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON);
  g_assert_cmpuint (spins3->len, ==, 4);
  cr_expression_panel_set_formula (panel, "foo(x)");
  g_assert_null (cr_expression_panel_get_script (panel));
  /* The reason shows in red under the entry. */
  g_autoptr (GPtrArray) labels = find_widgets (GTK_WIDGET (panel), GTK_TYPE_LABEL);
  gboolean shown = FALSE;
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      shown |= gtk_widget_get_visible (label) && gtk_widget_has_css_class (label, "error")
               && strstr (gtk_label_get_text (GTK_LABEL (label)), "Unknown function 'foo'") != NULL;
    }
  g_assert_true (shown);
  cr_expression_panel_set_formula (panel, "b*x");
  g_assert_cmpint (changes, ==, before + 2);
  g_assert_true (script_has (panel, "b = torch.tensor(4.5, requires_grad=True)"));

  /* Open as Script hands the current script over. */
  g_autoptr (GPtrArray) buttons = find_widgets (GTK_WIDGET (panel), GTK_TYPE_BUTTON);
  GtkWidget *open = NULL;
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (buttons, i)), "_Open as Script") == 0)
      open = g_ptr_array_index (buttons, i);
  g_assert_nonnull (open);
  g_signal_emit_by_name (open, "clicked");
  g_assert_cmpstr (opened, ==, cr_expression_panel_get_script (panel));

  /* An example row sets its formula. */
  g_autoptr (GPtrArray) rows = find_widgets (GTK_WIDGET (panel), ADW_TYPE_ACTION_ROW);
  g_assert_cmpuint (rows->len, ==, 4);
  for (guint i = 0; i < rows->len; i++)
    if (strstr (adw_preferences_row_get_title (g_ptr_array_index (rows, i)), "sigmoid(w*x + b)"))
      g_signal_emit_by_name (g_ptr_array_index (rows, i), "activated");
  g_assert_cmpstr (cr_expression_panel_get_formula (panel), ==, "sigmoid(w*x + b)");
  g_assert_true (script_has (panel, "out = torch.sigmoid(w * x + b)"));
  /* An example starts with its own values, not those of the formula before. */
  g_assert_true (script_has (panel, "b = torch.tensor(0.5, requires_grad=True)"));
  g_assert_true (script_has (panel, "x = torch.tensor(-1.0, requires_grad=True)"));

  /* The script the panel makes runs. */
  g_autofree char *output = run_script (cr_expression_panel_get_script (panel));
  g_assert_nonnull (strstr (output, "\u2202out/\u2202w = "));

  g_assert_finalize_object (panel);
}

static int
preview (void)
{
  GtkWidget *window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), "Expression");
  gtk_window_set_default_size (GTK_WINDOW (window), 420, 900);
  GtkWidget *panel = cr_expression_panel_new ();
  const char *formula = g_getenv ("CR_EXPRESSION_FORMULA");
  if (formula != NULL)
    cr_expression_panel_set_formula (CR_EXPRESSION_PANEL (panel), formula);
  gtk_window_set_child (GTK_WINDOW (window), panel);
  gtk_window_present (GTK_WINDOW (window));
  while (g_list_model_get_n_items (gtk_window_get_toplevels ()) > 0)
    g_main_context_iteration (NULL, TRUE);
  return 0;
}

#endif /* CR_TEST_PANEL */

int
main (int    argc,
      char **argv)
{
#ifdef CR_TEST_PANEL
  g_setenv ("GTK_A11Y", "none", FALSE);
  g_setenv ("GSETTINGS_BACKEND", "memory", FALSE);
  if (g_getenv ("CR_EXPRESSION_PREVIEW") != NULL)
    {
      gtk_init ();
      adw_init ();
      return preview ();
    }
  g_test_init (&argc, &argv, NULL);
  have_display = gtk_init_check ();
  if (have_display)
    adw_init ();

  g_test_add_func ("/ui/expression/panel", test_panel);
#else
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ui/expression/variables", test_variables);
  g_test_add_func ("/ui/expression/errors", test_errors);
  g_test_add_func ("/ui/expression/default-values", test_default_values);
  g_test_add_func ("/ui/expression/script-text", test_script_text);
  g_test_add_func ("/ui/expression/precedence", test_precedence);
  g_test_add_func ("/ui/expression/script-runs", test_script_runs);
  g_test_add_func ("/ui/expression/gradients", test_gradients);
  g_test_add_func ("/ui/expression/pytorch", test_pytorch);
#endif
  return g_test_run ();
}
