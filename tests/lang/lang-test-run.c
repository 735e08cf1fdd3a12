/* lang-test-run.c — a script run with its output captured
 * (lang-test-run.h). */
#include "lang-test-run.h"

#include <string.h>

void
lang_test_capture (const char *text,
                   gboolean    is_stderr,
                   gpointer    capture)
{
  LangTestCapture *c = capture;
  g_string_append (is_stderr ? c->err : c->out, text);
}

gboolean
lang_test_run (const char            *filename,
               const char            *source,
               const CrInterpOptions *options,
               LangTestRun           *run)
{
  LangTestCapture c = { g_string_new (NULL), g_string_new (NULL) };
  CrInterpOptions o = { 0 };
  if (options)
    o = *options;
  o.output = lang_test_capture;
  o.output_data = &c;
  memset (run, 0, sizeof *run);
  g_autoptr (GError) error = NULL;
  run->module = cr_parse (source, -1, filename, NULL, &error);
  g_assert_no_error (error);
  run->interp = cr_interp_new (&o);
  gboolean ok = cr_interp_run (run->interp, run->module, &run->error);
  run->out = g_string_free (c.out, FALSE);
  run->err = g_string_free (c.err, FALSE);
  return ok;
}

void
lang_test_run_clear (LangTestRun *run)
{
  g_free (run->out);
  g_free (run->err);
  cr_script_error_free (run->error);
  cr_interp_free (run->interp);
  cr_ast_module_free (run->module);
}
