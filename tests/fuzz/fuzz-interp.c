/* fuzz-interp.c — libFuzzer target for the whole interpreter: the input is a
 * script, run as `chainrule run` runs it, under tight budgets:
 *
 *   time       a watchdog thread sets the run's cancel flag (TimeoutError)
 *              RUN_SECONDS after the input starts; a run that ignores it is
 *              caught by libFuzzer's -timeout (a finding: cancellation broken);
 *   memory     RUN_MEMORY for tensors, values and the syntax tree (what
 *              --max-memory sets); a single allocation past libFuzzer's
 *              -malloc_limit_mb is a finding (the budget was bypassed);
 *   recursion  the interpreter's own limit and stack guard.
 *
 * Output is discarded. Every input runs on the same thread, as the window's
 * runs do: each must start from a clean state by itself. Everything is freed
 * after each input, so LeakSanitizer sees leaks. */
#include "cr-fuzz.h"

#include <glib.h>
#include <string.h>

#include "cr-ast.h"
#include "cr-interp.h"
#include "cr-storage.h"

#define RUN_SECONDS 1
#define RUN_MEMORY  (64 * 1024 * 1024)

/* The run's cancel flag (2: TimeoutError), and the watchdog that sets it:
 * deadline is a monotonic time, 0 while no input runs. */
static gint   cancel_flag;
static GMutex watchdog_lock;
static GCond  watchdog_cond;
static gint64 watchdog_deadline;

static gpointer
watchdog_main (gpointer unused)
{
  g_mutex_lock (&watchdog_lock);
  for (;;)
    {
      if (watchdog_deadline == 0)
        g_cond_wait (&watchdog_cond, &watchdog_lock);
      else if (!g_cond_wait_until (&watchdog_cond, &watchdog_lock, watchdog_deadline)
               && watchdog_deadline != 0 && g_get_monotonic_time () >= watchdog_deadline)
        {
          g_atomic_int_set (&cancel_flag, 2);
          watchdog_deadline = 0;
        }
    }
  return NULL;
}

static void
watchdog_arm (gint64 deadline)
{
  g_mutex_lock (&watchdog_lock);
  g_atomic_int_set (&cancel_flag, 0);
  watchdog_deadline = deadline;
  g_cond_signal (&watchdog_cond);
  g_mutex_unlock (&watchdog_lock);
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  cr_fuzz_init ();
  cr_memory_set_limit (RUN_MEMORY);
  /* Lives as long as the process; never joined. */
  g_thread_unref (g_thread_new ("fuzz-watchdog", watchdog_main, NULL));
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* The runner reads the script into a NUL-terminated buffer. */
  char *source = g_malloc (size + 1);
  memcpy (source, data, size);
  source[size] = '\0';

  watchdog_arm (g_get_monotonic_time () + RUN_SECONDS * G_TIME_SPAN_SECOND);
  /* The parse is under the deadline and the budget too, as in the runner and
   * the window. */
  CrParseOptions parse_options = {
    .cancel_flag = &cancel_flag,
    .max_memory = RUN_MEMORY,
  };
  CrSpan span = { 0 };
  GError *error = NULL;
  CrAstModule *module = cr_parse_with_options (source, (gssize) size, "<fuzz>", &parse_options,
                                               &span, &error);
  if (!module)
    {
      char *text = cr_format_syntax_error ("<fuzz>", source, &span, "SyntaxError", error->message);
      g_free (text);
      g_error_free (error);
      watchdog_arm (0);
      g_free (source);
      return 0;
    }

  /* No reset of the thread's state here: each run must start clean by
   * itself (the window runs script after script on one thread), so what a
   * run leaves behind is the engine's bug and should show up here. */
  CrInterpOptions options = {
    .output = NULL,                  /* discarded, but still formatted */
    .cancel_flag = &cancel_flag,
    .record_backward = TRUE,         /* what the window asks for */
    .trace_backward = TRUE,          /* what --trace-backward prints */
    .default_device = CR_DEVICE_CPU,
  };
  CrInterp *interp = cr_interp_new (&options);
  CrScriptError *script_error = NULL;
  gboolean ok = cr_interp_run (interp, module, &script_error);
  watchdog_arm (0);
  g_assert (ok == (script_error == NULL));
  if (script_error)
    g_assert (script_error->traceback != NULL && script_error->message != NULL);
  cr_script_error_free (script_error);

  /* What the window reads after a run: the run record, every backward
   * call and its steps. */
  CrRunRecord *record = cr_interp_get_run_record (interp);
  g_assert (record != NULL);
  for (guint i = 0; i < record->backwards->len; i++)
    {
      const CrRecordBackward *backward = g_ptr_array_index (record->backwards, i);
      for (guint s = 0; s < backward->steps->len; s++)
        {
          const CrRecordStep *step = g_ptr_array_index (backward->steps, s);
          g_assert (step->title != NULL);
        }
    }
  cr_run_record_unref (record);
  cr_interp_free (interp);
  cr_ast_module_free (module);
  g_free (source);
  return 0;
}
