/* cr-script-run.c — parse, run and build the graph models of a script, on
 * whatever thread calls it; see cr-script-run.h. */
#include "cr-script-run.h"

#include "cr-error.h"

#include <string.h>

/* A parse error as the runner prints it, and its one-line message. */
static void
set_parse_error (CrScriptRun  *run,
                 const char   *source,
                 const char   *filename,
                 const GError *error,
                 const CrSpan *span)
{
  CrException code = error->domain == CR_LANG_ERROR ? (CrException) error->code
                                                    : CR_EXC_SYNTAX_ERROR;
  const char *name = cr_exception_name (code);
  if (span->line > 0)
    run->traceback = cr_format_syntax_error (filename, source, span, name, error->message);
  else
    run->traceback = g_strdup_printf ("%s: %s\n", name, error->message);
  run->message = g_strdup_printf ("%s: %s", name, error->message);
  run->span = *span;
}

static void
set_script_error (CrScriptRun         *run,
                  const CrScriptError *script_error)
{
  run->traceback = g_strdup (script_error && script_error->traceback
                             ? script_error->traceback : "the script stopped with an error\n");
  if (script_error)
    {
      run->message = g_strdup_printf ("%s: %s", cr_exception_name (script_error->type),
                                      script_error->message);
      run->span = script_error->span;
    }
  else
    run->message = g_strdup ("The script stopped with an error");
}

void
cr_script_run (const char            *source,
               gssize                 length,
               const char            *filename,
               const CrInterpOptions *options,
               gboolean               every_call,
               CrScriptRun           *run)
{
  memset (run, 0, sizeof *run);
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  g_autoptr (CrAstModule) module = cr_parse (source, length, filename, &span, &error);
  if (!module)
    {
      set_parse_error (run, source, filename, error, &span);
      run->models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
      return;
    }

  CrInterpOptions recording = *options;
  recording.record_backward = TRUE;
  CrInterp *interp = cr_interp_new (&recording);
  CrScriptError *script_error = NULL;
  if (!cr_interp_run (interp, module, &script_error))
    {
      set_script_error (run, script_error);
      cr_script_error_free (script_error);
    }
  if (!options->cancel_flag || !g_atomic_int_get (options->cancel_flag))
    {
      if (every_call)
        run->models = cr_graph_models_new_from_interp (interp, source);
      else
        {
          run->models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
          CrGraphModel *model = cr_graph_model_new_from_interp (interp, source);
          if (model)
            g_ptr_array_add (run->models, model);
        }
    }
  cr_interp_free (interp);
}

void
cr_script_run_clear (CrScriptRun *run)
{
  g_clear_pointer (&run->models, g_ptr_array_unref);
  g_clear_pointer (&run->traceback, g_free);
  g_clear_pointer (&run->message, g_free);
  run->span = (CrSpan) { 0 };
}
