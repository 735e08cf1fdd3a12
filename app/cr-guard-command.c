/* cr-guard-command.c — `chainrule guard-run [--timeout S] [--max-memory BYTES]
 * [--device cpu|cuda] [--filename NAME] [--result-fd FD]`: the crash guard's
 * child (ui/cr-script-guard.h). Reads a script from stdin and runs it as the
 * window would, through cr_script_run() (the run recorded), under the
 * window's budgets; the run's answer (its record, output and error,
 * cr-guard-result.h) goes to FD, and is what the window shows. The exit
 * status says how the run ended; a bug in the engine ends it with a signal,
 * which is the point. `guard-run --serve` is the guard's server
 * (cr-guard-server.h), whose children run scripts the same way. */
#include "cr-config.h"
#include "cr-guard-command.h"
#include "cr-time-limit.h"

#include "cr-guard-protocol.h"
#include "cr-guard-result.h"
#include "cr-guard-server.h"
#include "cr-script-guard.h"
#include "cr-storage.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Set from signal handlers (cr-time-limit.h): 2 at the deadline. */
static gint cancel_flag;

static int
usage_error (const char *message)
{
  fprintf (stderr, "chainrule guard-run: %s\n"
                   "Usage: chainrule guard-run [--timeout SECONDS] [--max-memory BYTES] "
                   "[--device cpu|cuda] [--filename NAME] [--result-fd FD] < FILE.py\n"
                   "       chainrule guard-run --serve\n", message);
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
  int result_fd = -1;
  gboolean serve = FALSE;
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
      else if (strcmp (argv[i], "--result-fd") == 0 && value)
        {
          guint64 fd = 0;
          if (!g_ascii_string_to_unsigned (value, 10, 3, G_MAXINT, &fd, NULL))
            return usage_error ("--result-fd needs a descriptor number, 3 or more");
          result_fd = (int) fd;
        }
      else if (strcmp (argv[i], "--serve") == 0)
        {
          serve = TRUE;
          i--;   /* no value */
        }
      else
        return usage_error ("unknown option, or an option without its value");
    }

  if (serve)
    return cr_guard_serve (CR_GUARD_SERVE_FD);

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
  CrGuardRunOptions options = {
    .filename = filename,
    .device = device,
    .timeout_s = timeout,
    .max_memory = (gsize) max_memory,
    .result_fd = result_fd,
    .test_crash = g_strcmp0 (g_getenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV), "1") == 0,
  };
  return cr_guard_run_script (source, length, &options);
}

/* Writes all of bytes to fd; FALSE when it cannot. */
static gboolean
write_all (int     fd,
           GBytes *bytes)
{
  gsize length = 0;
  const guint8 *data = g_bytes_get_data (bytes, &length);
  for (gsize done = 0; done < length;)
    {
      ssize_t n = write (fd, data + done, length - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += (gsize) n;
    }
  return TRUE;
}

int
cr_guard_run_script (const char              *source,
                     gsize                    length,
                     const CrGuardRunOptions *options)
{
  /* Tests only (see CR_SCRIPT_GUARD_TEST_CRASH_ENV): a crash, on purpose. */
  if (options->test_crash)
    {
      fputs ("chainrule guard-run: " CR_SCRIPT_GUARD_TEST_CRASH_ENV " is set: crashing on purpose\n",
             stderr);
      fflush (stderr);
      raise (SIGSEGV);
    }

  cr_script_run_init_memory_budget ();
  if (options->max_memory)
    cr_memory_set_limit (options->max_memory);
  cr_time_limit_arm (&cancel_flag, options->timeout_s);
  /* What it prints is kept as the window keeps it, for the window. */
  g_autoptr (CrOutputTail) output = options->result_fd >= 0
    ? cr_output_tail_new (CR_OUTPUT_TAIL_MAX_LINES, CR_OUTPUT_TAIL_MAX_BYTES) : NULL;
  CrInterpOptions interp_options = {
    .output = output ? cr_output_tail_append : NULL,
    .output_data = output,
    .cancel_flag = &cancel_flag,
    .default_device = options->device,
    /* The window pins the mistakes coach's findings. */
    .coach = TRUE,
  };
  CrScriptRun run;
  /* Freeing the run's values, one by one, would only delay the answer. */
  if (options->exit_after_answer && options->result_fd >= 0)
    cr_script_run_skip_teardown ();
  cr_script_run_record_only (source, (gssize) length, options->filename, &interp_options, &run);
  cr_time_limit_disarm ();
  int status = CR_SCRIPT_GUARD_EXIT_RAN;
  if (run.message && g_str_has_prefix (run.message, "TimeoutError:"))
    status = CR_SCRIPT_GUARD_EXIT_TIMED_OUT;
  else if (run.message && (g_str_has_prefix (run.message, "MemoryError:")
                           || strcmp (run.message, "MemoryError") == 0))
    status = CR_SCRIPT_GUARD_EXIT_NO_MEMORY;
  if (status != CR_SCRIPT_GUARD_EXIT_RAN && run.traceback)
    fputs (run.traceback, stderr);
  if (options->result_fd >= 0)
    {
      g_autoptr (GBytes) answer = cr_guard_result_encode (&run, output);
      if (!write_all (options->result_fd, answer))
        fprintf (stderr, "chainrule guard-run: cannot write the answer: %s\n", g_strerror (errno));
      if (options->exit_after_answer)
        {
          /* No teardown: the process's memory goes with it. */
          fflush (stderr);
          close (STDERR_FILENO);
          _exit (status);
        }
    }
  cr_script_run_clear (&run);
  return status;
}
