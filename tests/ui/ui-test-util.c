/* ui-test-util.c — see ui-test-util.h. */
#include "ui-test-util.h"

#include "cr-script-run.h"

static void
collect_output (const char *text,
                gboolean    is_stderr,
                gpointer    user_data)
{
  g_string_append (user_data, text);
}

/* Runs source as the window does; asserts that it runs to the end. */
static GPtrArray *
run_script (const char *source,
            const char *path,
            GString    *trace,
            gboolean    every_call)
{
  CrInterpOptions options = {
    .trace_backward = trace != NULL,
    .output = trace ? collect_output : NULL,
    .output_data = trace,
  };
  CrScriptRun run;
  cr_script_run (source, -1, path ? path : "test.py", &options, every_call, &run);
  if (run.traceback)
    g_test_message ("%s", run.traceback);
  g_assert_null (run.message);
  GPtrArray *models = g_steal_pointer (&run.models);
  cr_script_run_clear (&run);
  return models;
}

GPtrArray *
cr_ui_test_models_from_script (const char *source,
                               const char *path,
                               GString    *trace)
{
  return run_script (source, path, trace, TRUE);
}

CrGraphModel *
cr_ui_test_model_from_script (const char *source,
                              const char *path)
{
  g_autoptr (GPtrArray) models = run_script (source, path, NULL, FALSE);
  return models->len > 0 ? g_ptr_array_steal_index (models, 0) : NULL;
}

static gboolean
set_flag_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
cr_ui_test_wait_until (CrUiTestPredicate predicate,
                       gpointer          data,
                       guint             timeout_s)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (timeout_s, set_flag_cb, &timed_out);
  gboolean holds;
  while (!(holds = predicate (data)) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return holds;
}

static gboolean
flag_set (gpointer data)
{
  return *(const gboolean *) data;
}

gboolean
cr_ui_test_wait_for_flag (const gboolean *flag,
                          guint           timeout_s)
{
  return cr_ui_test_wait_until (flag_set, (gpointer) flag, timeout_s);
}

void
cr_ui_test_iterate (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

void
cr_ui_test_spin (guint ms)
{
  gboolean done = FALSE;
  g_timeout_add (ms, set_flag_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}
