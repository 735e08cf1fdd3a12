/* teach-test-util.c — a script's run record for the teach tests. */
#include "teach-test-util.h"

#include "cr-interp.h"

static void
discard_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  (void) text;
  (void) is_stderr;
  (void) user_data;
}

CrRunRecord *
teach_test_record_script (const char *source,
                          const char *filename)
{
  CrInterpOptions o = { .output = discard_output, .record_backward = TRUE };
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse (source, -1, filename, NULL, &error);
  g_assert_no_error (error);
  CrInterp *interp = cr_interp_new (&o);
  CrScriptError *script_error = NULL;
  if (!cr_interp_run (interp, module, &script_error))
    g_test_message ("%s: %s", filename, script_error->message);
  cr_script_error_free (script_error);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return record;
}
