/* record-test-util.c — a script's run record for the record tests
 * (record-test-util.h). */
#include "record-test-util.h"

#include "cr-interp.h"

CrRunRecord *
record_test_run (const char *filename,
                 const char *source,
                 gboolean   *ok)
{
  g_autoptr (GError) error = NULL;
  CrAstModule *module = cr_parse (source, -1, filename, NULL, &error);
  g_assert_no_error (error);
  /* No output function: the script's printing is left out. */
  CrInterpOptions options = { .record_backward = TRUE };
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  gboolean succeeded = cr_interp_run (interp, module, &script_error);
  if (!ok && !succeeded)
    g_printerr ("%s", script_error->traceback);
  if (ok)
    *ok = succeeded;
  else
    g_assert_true (succeeded);
  cr_script_error_free (script_error);
  CrRunRecord *record = cr_interp_get_run_record (interp);
  g_assert_nonnull (record);
  /* The record outlives the interpreter and the graph. */
  cr_interp_free (interp);
  cr_ast_module_free (module);
  return record;
}

CrRunRecord *
record_test_run_file (const char *path,
                      gboolean   *ok)
{
  g_autofree char *source = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &source, NULL, &error));
  g_autofree char *name = g_path_get_basename (path);
  return record_test_run (name, source, ok);
}
