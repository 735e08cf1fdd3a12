/* test-torch.c — the torch layer of the script language, end to end: each
 * tests/lang/torch-cases/NAME.py runs through the parser and interpreter and
 * its stdout must match NAME.out, which PyTorch 1.13 printed for the same
 * script (torch-cases/regenerate.py writes them with /usr/bin/python3). A
 * case whose NAME.err is not empty must fail with that exception and
 * message; NAME.stderr, when present, is a line that must appear in the
 * warnings the script printed.
 *
 * Comparison as the conformance checker's: object addresses are masked,
 * trailing blanks ignored, and numbers must keep their printed form and agree
 * to 1e-4 relative / 1e-5 absolute (float32 sums may differ in the last
 * printed digit). */
#include "cr-interp.h"
#include "cr-ast.h"
#include "cr-device.h"
#include "cr-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  GString *out;
  GString *err;
} Output;

static void
output_cb (const char *text,
           gboolean    is_stderr,
           gpointer    user_data)
{
  Output *o = user_data;
  g_string_append (is_stderr ? o->err : o->out, text);
}

static GRegex *number_regex;
static GRegex *address_regex;

static char *
mask_addresses (const char *text)
{
  return g_regex_replace_literal (address_regex, text, -1, 0, "0x?", 0, NULL);
}

/* Lines without trailing blanks, trailing empty lines dropped. */
static GPtrArray *
lines_of (const char *text)
{
  g_autofree char *masked = mask_addresses (text);
  g_auto(GStrv) parts = g_strsplit (masked, "\n", -1);
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; parts[i] != NULL; i++)
    g_ptr_array_add (lines, g_strchomp (g_strdup (parts[i])));
  while (lines->len > 0 && *(char *) lines->pdata[lines->len - 1] == '\0')
    g_ptr_array_remove_index (lines, lines->len - 1);
  return lines;
}

/* (decimals capped at 5, has exponent): "4." is not "4.0000". */
static void
number_shape (const char *number,
              int        *decimals,
              gboolean   *exponent)
{
  const char *e = strpbrk (number, "eE");
  const char *dot = strchr (number, '.');
  gsize mantissa_len = e != NULL ? (gsize) (e - number) : strlen (number);

  *exponent = e != NULL;
  if (dot == NULL || (gsize) (dot - number) >= mantissa_len)
    *decimals = -1;
  else
    *decimals = MIN ((int) (mantissa_len - (dot - number) - 1), 5);
}

static gboolean
same_line (const char *expected,
           const char *actual)
{
  g_autofree char *e_skeleton = g_regex_replace_literal (number_regex, expected, -1, 0, "#", 0, NULL);
  g_autofree char *a_skeleton = g_regex_replace_literal (number_regex, actual, -1, 0, "#", 0, NULL);
  g_autoptr(GMatchInfo) em = NULL;
  g_autoptr(GMatchInfo) am = NULL;

  if (g_strcmp0 (e_skeleton, a_skeleton) != 0)
    return FALSE;
  g_regex_match (number_regex, expected, 0, &em);
  g_regex_match (number_regex, actual, 0, &am);
  while (g_match_info_matches (em) && g_match_info_matches (am))
    {
      g_autofree char *e = g_match_info_fetch (em, 0);
      g_autofree char *a = g_match_info_fetch (am, 0);
      int ed, ad;
      gboolean ee, ae;

      number_shape (e, &ed, &ee);
      number_shape (a, &ad, &ae);
      if (ed != ad || ee != ae)
        return FALSE;
      if (ed < 0 && !ee)
        {
          if (g_ascii_strtoll (e, NULL, 10) != g_ascii_strtoll (a, NULL, 10))
            return FALSE;
        }
      else
        {
          double ev = g_ascii_strtod (e, NULL), av = g_ascii_strtod (a, NULL);
          if (fabs (ev - av) > 1e-5 + 1e-4 * fabs (ev))
            return FALSE;
        }
      g_match_info_next (em, NULL);
      g_match_info_next (am, NULL);
    }
  return TRUE;
}

/* Report and fail this case, letting the others run. */
#define FAIL(...) \
  G_STMT_START { \
    g_autofree char *message_ = g_strdup_printf (__VA_ARGS__); \
    g_test_message ("%s", message_); \
    g_printerr ("%s\n", message_); \
    g_test_fail (); \
    goto out; \
  } G_STMT_END

static char *
read_optional (const char *base,
               const char *suffix)
{
  g_autofree char *path = g_strconcat (base, suffix, NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  return text;
}

static void
run_case (gconstpointer data)
{
  const char *base = data;
  g_autofree char *py = g_strconcat (base, ".py", NULL);
  g_autofree char *source = NULL;
  g_autofree char *expected_out = NULL;
  g_autofree char *expected_err_text = NULL;
  g_autofree char *expected_stderr = NULL;
  g_autofree char *filename = g_path_get_basename (py);
  g_autoptr(GError) error = NULL;
  g_autoptr(CrAstModule) module = NULL;
  g_autoptr(GPtrArray) exp_lines = NULL;
  g_autoptr(GPtrArray) act_lines = NULL;
  CrInterpOptions options = { 0 };
  Output output = { g_string_new (NULL), g_string_new (NULL) };
  CrScriptError *script_error = NULL;
  CrInterp *interp;
  CrSpan span;
  gboolean ok;
  const char *expected_err;

  g_assert_true (g_file_get_contents (py, &source, NULL, NULL));
  expected_out = read_optional (base, ".out");
  expected_err_text = read_optional (base, ".err");
  expected_stderr = read_optional (base, ".stderr");
  expected_err = g_strstrip (expected_err_text);

  module = cr_parse (source, -1, filename, &span, &error);
  g_assert_no_error (error);

  options.output = output_cb;
  options.output_data = &output;
  options.default_device = CR_DEVICE_CPU;
  interp = cr_interp_new (&options);
  ok = cr_interp_run (interp, module, &script_error);

  if (g_test_verbose ())
    g_printerr ("---- stdout\n%s---- stderr\n%s", output.out->str, output.err->str);

  exp_lines = lines_of (expected_out);
  act_lines = lines_of (output.out->str);
  for (guint i = 0; i < MIN (exp_lines->len, act_lines->len); i++)
    if (!same_line (exp_lines->pdata[i], act_lines->pdata[i]))
      FAIL ("%s: stdout line %u: expected\n  %s\ngot\n  %s%s%s", filename, i + 1,
               (char *) exp_lines->pdata[i], (char *) act_lines->pdata[i],
               script_error != NULL ? "\nerror: " : "",
               script_error != NULL ? script_error->message : "");
  if (exp_lines->len != act_lines->len)
    FAIL ("%s: stdout has %u lines, expected %u%s%s", filename, act_lines->len,
             exp_lines->len, script_error != NULL ? "\nerror: " : "",
             script_error != NULL ? script_error->message : "");

  if (*expected_err != '\0')
    {
      g_autofree char *actual = NULL;
      g_autofree char *masked_expected = mask_addresses (expected_err);
      g_autofree char *masked_actual = NULL;

      if (ok)
        FAIL ("%s: ran without error, expected %s", filename, expected_err);
      actual = g_strdup_printf ("%s: %s", cr_exception_name (script_error->type),
                                script_error->message);
      masked_actual = mask_addresses (actual);
      if (!same_line (masked_expected, masked_actual))
        FAIL ("%s: expected the error\n  %s\ngot\n  %s", filename, expected_err, actual);
    }
  else if (!ok)
    FAIL ("%s: failed: %s: %s", filename, cr_exception_name (script_error->type),
             script_error->message);

  if (*g_strstrip (expected_stderr) != '\0' && strstr (output.err->str, expected_stderr) == NULL)
    FAIL ("%s: stderr lacks\n  %s\nit was\n%s", filename, expected_stderr, output.err->str);

out:
  cr_script_error_free (script_error);
  cr_interp_free (interp);
  g_string_free (output.out, TRUE);
  g_string_free (output.err, TRUE);
}

/* Runs source; returns the uncaught error (NULL when none) and the stdout. */
static CrScriptError *
run_source (const char  *source,
            char       **out_stdout)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrAstModule) module = cr_parse (source, -1, "<test>", NULL, &error);
  CrInterpOptions options = { 0 };
  Output output = { g_string_new (NULL), g_string_new (NULL) };
  CrScriptError *script_error = NULL;
  CrInterp *interp;

  g_assert_no_error (error);
  options.output = output_cb;
  options.output_data = &output;
  interp = cr_interp_new (&options);
  cr_interp_run (interp, module, &script_error);
  cr_interp_free (interp);
  *out_stdout = g_string_free (output.out, FALSE);
  g_string_free (output.err, TRUE);
  return script_error;
}

/* CUDA as a script sees it depends on the machine: without a usable device,
 * PyTorch's "Found no NVIDIA driver" error for every way of asking for one,
 * and is_available() False. */
static void
test_cuda (void)
{
  static const char *const scripts[] = {
    "import torch\ntorch.zeros(2, device='cuda')\n",
    "import torch\ntorch.ones(2).cuda()\n",
    "import torch\ntorch.ones(2).to('cuda:0')\n",
    "import torch\ntorch.tensor([1.], device=torch.device('cuda'))\n",
    "import torch\ntorch.cuda.synchronize()\n",
  };
  g_autofree char *out = NULL;
  CrScriptError *e;

  e = run_source ("import torch\nprint(torch.cuda.is_available(), torch.cuda.device_count())\n"
                  "print(torch.device('cuda'), repr(torch.device('cuda:0')))\n", &out);
  g_assert_null (e);
  if (cr_cuda_is_available ())
    {
      g_test_skip ("a CUDA device is usable here");
      return;
    }
  /* repr(torch.device('cuda:0')) carries the index, as in PyTorch. */
  g_assert_cmpstr (out, ==, "False 0\ncuda device(type='cuda', index=0)\n");

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autofree char *o = NULL;
      e = run_source (scripts[i], &o);
      g_assert_nonnull (e);
      g_assert_cmpint (e->type, ==, CR_EXC_RUNTIME_ERROR);
      g_assert_true (g_str_has_prefix (e->message,
                                       "Found no NVIDIA driver on your system. Please check that "
                                       "you have an NVIDIA GPU and installed a driver from "
                                       "http://www.nvidia.com/Download/index.aspx"));
      cr_script_error_free (e);
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements. */
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_test_init (&argc, &argv, NULL);

  number_regex = g_regex_new ("[-+]?(?:\\d+\\.\\d*|\\.\\d+|\\d+)(?:[eE][-+]?\\d+)?", 0, 0, NULL);
  address_regex = g_regex_new ("0x[0-9a-fA-F]+", 0, 0, NULL);

  dir = g_dir_open (TORCH_CASES_DIR, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".py") && strcmp (name, "regenerate.py") != 0)
      g_ptr_array_add (names, g_strndup (name, strlen (name) - 3));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_strdup_printf ("/lang/torch/%s", (char *) names->pdata[i]);
      char *base = g_build_filename (TORCH_CASES_DIR, names->pdata[i], NULL);
      g_test_add_data_func_full (path, base, run_case, g_free);
    }

  g_test_add_func ("/lang/torch-cuda/unavailable", test_cuda);

  return g_test_run ();
}
