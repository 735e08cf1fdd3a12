/* cr-script-run.c — parse, run and build the graph models of a script, on
 * whatever thread calls it; see cr-script-run.h. */
#include "cr-script-run.h"

#include "cr-error.h"
#include "cr-notebook.h"
#include "cr-storage.h"

#include <string.h>
#include <unistd.h>

#define MIN_BUDGET ((gsize) 256 << 20)
#define MAX_BUDGET ((gsize) 4 << 30)

/* The cgroup v2 limit of this process ("max" or unreadable: none). */
static gsize
cgroup_memory_limit (void)
{
  g_autofree char *cgroup = NULL;
  if (!g_file_get_contents ("/proc/self/cgroup", &cgroup, NULL, NULL)
      || !g_str_has_prefix (cgroup, "0::"))
    return G_MAXSIZE;
  g_strchomp (cgroup);
  g_autofree char *path = g_build_filename ("/sys/fs/cgroup", cgroup + 3, "memory.max", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return G_MAXSIZE;
  guint64 limit = 0;
  if (!g_ascii_string_to_unsigned (g_strchomp (text), 10, 1, G_MAXUINT64, &limit, NULL))
    return G_MAXSIZE;
  return (gsize) MIN (limit, (guint64) G_MAXSIZE);
}

gsize
cr_script_run_memory_budget (void)
{
  long pages = sysconf (_SC_PHYS_PAGES);
  long page_size = sysconf (_SC_PAGE_SIZE);
  gsize usable = pages > 0 && page_size > 0 ? (gsize) pages * (gsize) page_size : MAX_BUDGET * 4;
  usable = MIN (usable, cgroup_memory_limit ());
  return CLAMP (usable / 4, MIN_BUDGET, MAX_BUDGET);
}

void
cr_script_run_init_memory_budget (void)
{
  static gsize budget_set = 0;
  if (g_once_init_enter (&budget_set))
    {
      cr_memory_set_limit (cr_script_run_memory_budget ());
      g_once_init_leave (&budget_set, 1);
    }
}

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
  /* A notebook cell's traceback is in the output already, where it failed. */
  if (!(script_error && script_error->reported))
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

/* The graph models of a finished run, from its record: one per backward
 * call, or (not every_call) the last call's alone; the forward graph when
 * it made none. */
static GPtrArray *
models_of_run (CrRunRecord *record,
               gboolean     every_call)
{
  if (every_call)
    return cr_graph_models_new_from_run_record (record);
  GPtrArray *models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
  CrGraphModel *model = cr_graph_model_new_from_run_record (record, (int) record->backwards->len - 1);
  if (model)
    g_ptr_array_add (models, model);
  return models;
}

static gboolean skip_teardown;

void
cr_script_run_skip_teardown (void)
{
  skip_teardown = TRUE;
}

/* Parses and runs source, keeping its record; models are built unless
 * record_only. */
static void
run_script (const char            *source,
            gssize                 length,
            const char            *filename,
            const CrInterpOptions *options,
            gboolean               every_call,
            gboolean               record_only,
            CrScriptRun           *run)
{
  memset (run, 0, sizeof *run);
  cr_script_run_init_memory_budget ();
  g_autoptr (GError) error = NULL;
  CrSpan span = { 0 };
  /* The parse too can be stopped by an edit, and is under the budget. */
  CrParseOptions parse_options = {
    .cancel_flag = options->cancel_flag,
    .max_memory = cr_memory_get_limit (),
  };
  /* A notebook (by its file name) runs as its cells (core/notebook). */
  g_autoptr (CrNotebookProgram) cells = NULL;
  g_autoptr (CrAstModule) module = NULL;
  if (cr_notebook_is_path (filename))
    {
      cells = cr_notebook_program_new (source, length, filename, &parse_options, &span, &error);
      if (cells)
        module = g_steal_pointer (&cells->module);
    }
  else
    module = cr_parse_with_options (source, length, filename, &parse_options, &span, &error);
  if (!module)
    {
      set_parse_error (run, source, filename, error, &span);
      run->models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
      return;
    }

  CrInterpOptions recording = *options;
  recording.record_backward = TRUE;
  CrInterp *interp = cr_interp_new (&recording);
  if (cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->cells->data,
                         cells->cells->len);
  CrScriptError *script_error = NULL;
  if (!cr_interp_run (interp, module, &script_error))
    {
      set_script_error (run, script_error);
      cr_script_error_free (script_error);
    }
  if (!options->cancel_flag || !g_atomic_int_get (options->cancel_flag))
    {
      run->record = cr_interp_get_run_record (interp);
      if (!record_only || !run->record)
        cr_script_run_build_models (run, every_call);
    }
  if (!skip_teardown)
    cr_interp_free (interp);
}

void
cr_script_run (const char            *source,
               gssize                 length,
               const char            *filename,
               const CrInterpOptions *options,
               gboolean               every_call,
               CrScriptRun           *run)
{
  run_script (source, length, filename, options, every_call, FALSE, run);
}

void
cr_script_run_record_only (const char            *source,
                           gssize                 length,
                           const char            *filename,
                           const CrInterpOptions *options,
                           CrScriptRun           *run)
{
  run_script (source, length, filename, options, FALSE, TRUE, run);
}

void
cr_script_run_build_models (CrScriptRun *run,
                            gboolean     every_call)
{
  g_return_if_fail (run->models == NULL);
  run->models = run->record ? models_of_run (run->record, every_call)
                            : g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
}

void
cr_script_run_clear (CrScriptRun *run)
{
  g_clear_pointer (&run->models, g_ptr_array_unref);
  g_clear_pointer (&run->traceback, g_free);
  g_clear_pointer (&run->message, g_free);
  g_clear_pointer (&run->record, cr_run_record_unref);
  run->span = (CrSpan) { 0 };
}
