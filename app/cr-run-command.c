/* cr-run-command.c — `chainrule run [OPTIONS] FILE.py`: parse and run a
 * script with stdout and stderr as python3 gives them (a traceback and exit
 * status 1 on an uncaught error), a time limit, a memory limit, a default
 * device, an optional trace of every backward step, and an optional run
 * record written as JSON (--record, docs/run-record.md).
 *
 * stdout is fully buffered when it is not a terminal and flushed before
 * anything goes to stderr, so the two interleave as the script wrote them. */
#include "cr-config.h"
#include "cr-run-command.h"

#include "cr-cli-options.h"
#include "cr-coach-report.h"
#include "cr-device.h"
#include "cr-script-load.h"
#include "cr-time-limit.h"

#include "cr-interp.h"
#include "cr-kernels.h"
#include "cr-interp-cells.h"
#include "cr-run-record-json.h"
#include "cr-storage.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct {
  const char   *file;
  double        timeout;          /* seconds; 0: none */
  gsize         max_memory;       /* 0: the default */
  gboolean      trace_backward;
  gboolean      trace_forward;
  gboolean      coach;            /* --coach: the mistakes coach's advice on stderr */
  const char   *record;           /* --record: the JSON file, "-" for stdout; NULL: none */
  CrDeviceType  device;
} RunOptions;

/* Set from signal handlers (cr-time-limit.h): 1 on Ctrl-C (KeyboardInterrupt),
 * 2 when the --timeout deadline passes (TimeoutError). */
static gint cancel_flag;

/* --record -: stdout carries the record alone, so the script's own output
 * goes to stderr. */
static gboolean script_stdout_to_stderr;

void
cr_run_command_usage (FILE *out)
{
  fputs ("Usage: chainrule run [OPTIONS] FILE.py     (FILE '-' reads the script from stdin)\n"
         "       chainrule run [OPTIONS] FILE.ipynb  (a notebook's code cells, as Jupyter runs them)\n"
         "\n"
         "Options:\n"
         "  --timeout SECONDS       stop the script after this long (TimeoutError, exit 1)\n"
         "  --max-memory BYTES      cap on memory (tensors and values), e.g. 512M or 4G (default 4G)\n"
         "  --device cpu|cuda       the device new tensors go to (default cpu)\n"
         "  --trace-forward         print every forward op with its numbers (before each\n"
         "                          backward call, the ops that led to it)\n"
         "  --trace-backward        print every step of every backward pass\n"
         "  --coach                 after the run, explain the classic autograd mistakes it\n"
         "                          made (on stderr), each with its fix, and run the script\n"
         "                          again with the fixes to show what changed\n"
         "  --record FILE.json      write the run record (every op, backward step, hook and\n"
         "                          error) as JSON, also when the script fails; '-' writes it\n"
         "                          to stdout and the script's own output to stderr\n"
         "  --help                  show this help\n"
         "  --version               show the version\n", out);
}

static const CrCliCommand command = { "chainrule run", cr_run_command_usage };

/* "4G", "512M", "1.5GiB", "1000000" -> bytes (powers of 1024). */
static gboolean
parse_size (const char *text,
            gpointer    out_bytes)
{
  gsize *out = out_bytes;
  char *end = NULL;
  errno = 0;
  double value = g_ascii_strtod (text, &end);
  if (errno || end == text || !(value > 0) || !isfinite (value))
    return FALSE;
  double scale = 1;
  switch (g_ascii_toupper (*end))
    {
    case 'K': scale = 1024.0; end++; break;
    case 'M': scale = 1024.0 * 1024; end++; break;
    case 'G': scale = 1024.0 * 1024 * 1024; end++; break;
    case 'T': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
  if (scale > 1 && (*end == 'i' || *end == 'I'))
    end++;
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end != '\0')
    return FALSE;
  double bytes = value * scale;
  if (bytes > (double) G_MAXSIZE / 2)
    return FALSE;
  *out = (gsize) bytes;
  return *out > 0;
}

static gboolean
parse_device (const char *value,
              gpointer    out)
{
  if (strcmp (value, "cpu") == 0)
    *(CrDeviceType *) out = CR_DEVICE_CPU;
  else if (strcmp (value, "cuda") == 0 || g_str_has_prefix (value, "cuda:"))
    *(CrDeviceType *) out = CR_DEVICE_CUDA;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_record (const char *value,
              gpointer    out)
{
  *(const char **) out = value;
  return value[0] != '\0';
}

/* Options until the script's name, as python3 reads them: what follows it
 * would be the script's sys.argv. */
static int
parse_options (int         argc,
               char      **argv,
               RunOptions *opts)
{
  const CrCliOption options[] = {
    { "--trace-backward", NULL, NULL, &opts->trace_backward, NULL },
    { "--trace-forward", NULL, NULL, &opts->trace_forward, NULL },
    { "--coach", NULL, NULL, &opts->coach, NULL },
    CR_CLI_TIMEOUT_OPTION (&opts->timeout),
    { "--max-memory", NULL, parse_size, &opts->max_memory, "--max-memory needs a size like 512M or 4G" },
    { "--device", NULL, parse_device, &opts->device, "--device must be cpu or cuda" },
    { "--record", NULL, parse_record, &opts->record, "--record needs a file name, or - for stdout" },
    { NULL },
  };
  gboolean only_files = FALSE;
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      if (only_files || arg[0] != '-' || strcmp (arg, "-") == 0)
        {
          if (!opts->file)
            opts->file = arg;
          /* Later arguments would be the script's sys.argv, which a
           * Chainrule script cannot read: they are ignored. */
          continue;
        }
      if (opts->file)
        continue;
      if (strcmp (arg, "--") == 0)
        {
          only_files = TRUE;
          continue;
        }
      if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
        {
          cr_run_command_usage (stdout);
          return 0;
        }
      if (strcmp (arg, "--version") == 0)
        {
          printf ("chainrule %s\n", CR_VERSION);
          return 0;
        }
      gboolean taken = FALSE;
      int status = cr_cli_take_option (&command, argc, argv, &i, options, &taken);
      if (status >= 0)
        return status;
      if (!taken)
        return cr_cli_usage_error (&command, "unknown option '%s'", arg);
    }
  if (!opts->file)
    return cr_cli_usage_error (&command, "no script given (FILE.py, or - for stdin)");
  return -1;
}

static void
output_cb (const char *text,
           gboolean    is_stderr,
           gpointer    user_data)
{
  if (is_stderr || script_stdout_to_stderr)
    {
      fflush (stdout);
      fputs (text, stderr);
      fflush (stderr);
    }
  else
    fputs (text, stdout);
}

/* Adds the run's uncaught error to record unless the recorder already holds
 * it as its last error (the same message raised on the same line: the
 * recorder names a script's own exception class, MyError, where type is
 * its builtin base). */
static void
note_uncaught_error (CrRunRecord     *record,
                     CrException      type,
                     const char      *message,
                     const CrSpan    *span)
{
  const char *name = cr_exception_name (type);
  if (record->errors->len > 0)
    {
      const CrRecordError *last = record->errors->pdata[record->errors->len - 1];
      if (g_strcmp0 (last->message, message) == 0
          && (g_strcmp0 (last->type, name) == 0 || (span && last->span.line == span->line)))
        return;
    }
  CrRecordError *error = cr_run_record_add_error (record);
  error->type = g_strdup (name);
  error->message = g_strdup (message ? message : "");
  if (span)
    error->span = *span;
}

/* Writes record as JSON to path ("-": stdout, after everything the script
 * printed). FALSE, with a message on stderr, when the file cannot be
 * written. */
static gboolean
write_record (const char  *path,
              CrRunRecord *record)
{
  gsize length = 0;
  g_autofree char *json = cr_run_record_to_json (record, &length);
  if (strcmp (path, "-") == 0)
    {
      fflush (stdout);
      gboolean ok = fwrite (json, 1, length, stdout) == length && fflush (stdout) == 0;
      if (!ok)
        fprintf (stderr, "chainrule: can't write the record to stdout: %s\n", g_strerror (errno));
      return ok;
    }
  FILE *file = fopen (path, "wb");
  gboolean ok = file && fwrite (json, 1, length, file) == length;
  int saved_errno = errno;
  if (file && fclose (file) != 0 && ok)
    {
      ok = FALSE;
      saved_errno = errno;
    }
  if (!ok)
    {
      fflush (stdout);
      fprintf (stderr, "chainrule: can't write the record '%s': %s\n", path, g_strerror (saved_errno));
    }
  return ok;
}

int
cr_run_command (int    argc,
                char **argv)
{
  RunOptions opts = { 0 };
  int status = parse_options (argc, argv, &opts);
  if (status >= 0)
    return status;

  g_auto (CrScriptText) text = { 0 };
  if (!cr_script_text_read (&text, "chainrule", opts.file, NULL))
    return 2;

  /* New tensors would go to the device; when it cannot hold them, say so
   * before running rather than at the script's first tensor. */
  {
    g_autoptr (GError) device_error = NULL;
    if (!cr_device_check_usable (opts.device, &device_error))
      {
        fprintf (stderr, "chainrule: --device %s: %s: %s\n",
                 opts.device == CR_DEVICE_CUDA ? "cuda" : "cpu",
                 cr_exception_name ((CrException) device_error->code), device_error->message);
        return 1;
      }
  }

  if (!isatty (STDOUT_FILENO))
    setvbuf (stdout, NULL, _IOFBF, 1 << 16);
  script_stdout_to_stderr = opts.record && strcmp (opts.record, "-") == 0;
  cr_threads_init ();
  if (opts.max_memory)
    cr_memory_set_limit (opts.max_memory);

  /* The time limit covers parsing too (a big text takes a while even in
   * linear time), and Ctrl-C stops the parse as it stops a run. */
  cr_time_limit_arm (&cancel_flag, opts.timeout);
  CrSpan span = { 0 };
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (GArray) cells = NULL;
  g_autoptr (CrAstModule) module = cr_script_text_parse (&text, &cancel_flag, &cells, &span,
                                                         &parse_error);
  if (!module)
    {
      cr_time_limit_disarm ();
      cr_script_print_parse_error (&text, &span, parse_error);
      if (opts.record)
        {
          /* Nothing ran: the record holds the script and why it did not run. */
          g_autoptr (CrRunRecord) record = cr_run_record_new (text.filename, text.source);
          CrException code = parse_error->domain == CR_LANG_ERROR
                             ? (CrException) parse_error->code : CR_EXC_SYNTAX_ERROR;
          note_uncaught_error (record, code, parse_error->message, &span);
          write_record (opts.record, record);
        }
      return 1;
    }

  CrInterpOptions io = {
    .output = output_cb,
    .cancel_flag = &cancel_flag,
    .trace_backward = opts.trace_backward,
    /* The trace prints each backward call from the run record. */
    .record_backward = opts.record != NULL || opts.trace_backward || opts.coach,
    .default_device = opts.device,
    .coach = opts.coach,
    .trace_forward = opts.trace_forward,
  };
  CrInterp *interp = cr_interp_new (&io);
  if (cells)
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->data, cells->len);
  CrScriptError *script_error = NULL;
  gboolean ok = cr_interp_run (interp, module, &script_error);
  cr_time_limit_disarm ();

  fflush (stdout);
  if (!ok && !(script_error && script_error->reported))
    {
      if (script_error && script_error->traceback)
        fputs (script_error->traceback, stderr);
      else
        fputs ("RuntimeError: the script failed\n", stderr);
      fflush (stderr);
    }
  if (opts.coach)
    {
      g_autoptr (CrRunRecord) record = cr_interp_get_run_record (interp);
      /* The corrected run keeps to a time limit of its own, and none after
       * Ctrl-C. */
      gboolean interrupted = g_atomic_int_get (&cancel_flag) == 1;
      g_atomic_int_set (&cancel_flag, 0);
      cr_time_limit_arm (&cancel_flag, opts.timeout);
      cr_coach_report (stderr, record, !ok, !interrupted, &cancel_flag);
      cr_time_limit_disarm ();
    }
  gboolean record_written = TRUE;
  if (opts.record)
    {
      g_autoptr (CrRunRecord) record = cr_interp_get_run_record (interp);
      if (!record)
        record = cr_run_record_new (text.filename, text.source);
      /* A notebook cell's error is in the record already, as it failed. */
      if (!ok && script_error && !script_error->reported)
        note_uncaught_error (record, script_error->type, script_error->message, &script_error->span);
      record_written = write_record (opts.record, record);
    }
  cr_script_error_free (script_error);
  /* Tearing down every tensor of a big script costs time and nothing else:
   * the process ends here. Under a leak checker, free everything. */
#if defined(__SANITIZE_ADDRESS__)
  gboolean free_all = TRUE;
#else
  gboolean free_all = g_getenv ("CR_FREE_AT_EXIT") != NULL;
#endif
  if (free_all)
    {
      cr_interp_free (interp);
      g_clear_pointer (&module, cr_ast_module_free);
    }
  else
    {
      fflush (stdout);
      fflush (stderr);
      _exit (ok && record_written ? 0 : 1);
    }
  return ok && record_written ? 0 : 1;
}
