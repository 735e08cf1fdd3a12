/* cr-guard-command.c — `chainrule guard-run [--timeout S] [--max-memory BYTES]
 * [--device cpu|cuda] [--filename NAME]`: the crash guard's child (ui/cr-script-guard.h). Reads a
 * script from stdin and runs it exactly as the window does, through
 * cr_script_run() (the run recorded, the first graph model built), under the
 * window's budgets, its output discarded. The exit status says how the run
 * ended; a bug in the engine ends it with a signal, which is the point. */
#include "cr-config.h"
#include "cr-guard-command.h"
#include "cr-time-limit.h"

#include "cr-script-guard.h"
#include "cr-storage.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Set from signal handlers (cr-time-limit.h): 2 at the deadline. */
static gint cancel_flag;

static int
usage_error (const char *message)
{
  fprintf (stderr, "chainrule guard-run: %s\n"
                   "Usage: chainrule guard-run [--timeout SECONDS] [--max-memory BYTES] "
                   "[--device cpu|cuda] [--filename NAME] < FILE.py\n", message);
  return 2;
}

int
cr_guard_command (int    argc,
                  char **argv)
{
  double timeout = 0;
  guint64 max_memory = 0;
  const char *filename = "<editor>";
  CrDeviceType device = CR_DEVICE_CPU;
  /* Every option takes a value: the loop steps over both. */
  for (int i = 1; i < argc; i += 2)
    {
      const char *value = i + 1 < argc ? argv[i + 1] : NULL;
      if (strcmp (argv[i], "--timeout") == 0 && value)
        {
          if (!cr_time_limit_parse (value, &timeout))
            return usage_error ("--timeout needs a positive number of seconds");
        }
      else if (strcmp (argv[i], "--max-memory") == 0 && value)
        {
          if (!g_ascii_string_to_unsigned (value, 10, 1, G_MAXSIZE, &max_memory, NULL))
            return usage_error ("--max-memory needs a number of bytes");
        }
      else if (strcmp (argv[i], "--device") == 0 && value)
        {
          if (strcmp (value, "cpu") != 0 && strcmp (value, "cuda") != 0)
            return usage_error ("--device must be cpu or cuda");
          device = strcmp (value, "cuda") == 0 ? CR_DEVICE_CUDA : CR_DEVICE_CPU;
        }
      else if (strcmp (argv[i], "--filename") == 0 && value)
        filename = value;
      else
        return usage_error ("unknown option, or an option without its value");
    }

  g_autoptr (GIOChannel) in = g_io_channel_unix_new (0);
  g_io_channel_set_encoding (in, NULL, NULL);
  g_autofree char *source = NULL;
  gsize length = 0;
  g_autoptr (GError) error = NULL;
  if (g_io_channel_read_to_end (in, &source, &length, &error) != G_IO_STATUS_NORMAL)
    {
      fprintf (stderr, "chainrule guard-run: cannot read the script: %s\n", error->message);
      return 1;
    }
  source = g_realloc (source, length + 1);
  source[length] = '\0';

  /* Tests only (see CR_SCRIPT_GUARD_TEST_CRASH_ENV): a crash, on purpose. */
  if (g_strcmp0 (g_getenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV), "1") == 0)
    {
      fputs ("chainrule guard-run: " CR_SCRIPT_GUARD_TEST_CRASH_ENV " is set: crashing on purpose\n",
             stderr);
      fflush (stderr);
      raise (SIGSEGV);
    }

  cr_script_run_init_memory_budget ();
  if (max_memory)
    cr_memory_set_limit ((gsize) max_memory);
  cr_time_limit_arm (&cancel_flag, timeout);
  CrInterpOptions options = {   /* output: discarded */
    .cancel_flag = &cancel_flag,
    .default_device = device,
  };
  CrScriptRun run;
  cr_script_run (source, (gssize) length, filename, &options, FALSE, &run);
  cr_time_limit_disarm ();
  int status = CR_SCRIPT_GUARD_EXIT_RAN;
  if (run.message && g_str_has_prefix (run.message, "TimeoutError:"))
    status = CR_SCRIPT_GUARD_EXIT_TIMED_OUT;
  else if (run.message && (g_str_has_prefix (run.message, "MemoryError:")
                           || strcmp (run.message, "MemoryError") == 0))
    status = CR_SCRIPT_GUARD_EXIT_NO_MEMORY;
  if (status != CR_SCRIPT_GUARD_EXIT_RAN && run.traceback)
    fputs (run.traceback, stderr);
  cr_script_run_clear (&run);
  return status;
}
