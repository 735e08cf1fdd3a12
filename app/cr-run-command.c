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

#include "cr-device.h"
#include "cr-time-limit.h"
#include "cr-coach-report.h"

#include "cr-interp.h"
#include "cr-kernels.h"
#include "cr-notebook.h"
#include "cr-run-record-json.h"
#include "cr-storage.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
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

static int usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *format,
             ...)
{
  va_list ap;
  fputs ("chainrule run: ", stderr);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputs ("\n\n", stderr);
  cr_run_command_usage (stderr);
  return 2;
}

/* "4G", "512M", "1.5GiB", "1000000" -> bytes (powers of 1024). */
static gboolean
parse_size (const char *text,
            gsize      *out)
{
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

static int
parse_options (int         argc,
               char      **argv,
               RunOptions *opts)
{
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
      if (strcmp (arg, "--trace-backward") == 0)
        {
          opts->trace_backward = TRUE;
          continue;
        }
      if (strcmp (arg, "--trace-forward") == 0)
        {
          opts->trace_forward = TRUE;
          continue;
        }
      if (strcmp (arg, "--coach") == 0)
        {
          opts->coach = TRUE;
          continue;
        }
      /* Options with a value: "--name VALUE" or "--name=VALUE". */
      const char *names[] = { "--timeout", "--max-memory", "--device", "--record" };
      const char *value = NULL;
      guint which = G_N_ELEMENTS (names);
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        {
          gsize len = strlen (names[k]);
          if (strncmp (arg, names[k], len) == 0 && (arg[len] == '\0' || arg[len] == '='))
            {
              which = k;
              if (arg[len] == '=')
                value = arg + len + 1;
              else if (i + 1 < argc)
                value = argv[++i];
              else
                return usage_error ("option %s needs a value", names[k]);
              break;
            }
        }
      if (which == G_N_ELEMENTS (names))
        return usage_error ("unknown option '%s'", arg);
      if (which == 0)
        {
          if (!cr_time_limit_parse (value, &opts->timeout))
            return usage_error ("--timeout needs a positive number of seconds, not '%s'", value);
        }
      else if (which == 1)
        {
          if (!parse_size (value, &opts->max_memory))
            return usage_error ("--max-memory needs a size like 512M or 4G, not '%s'", value);
        }
      else if (which == 3)
        {
          if (!value[0])
            return usage_error ("--record needs a file name, or - for stdout");
          opts->record = value;
        }
      else
        {
          if (strcmp (value, "cpu") == 0)
            opts->device = CR_DEVICE_CPU;
          else if (strcmp (value, "cuda") == 0 || g_str_has_prefix (value, "cuda:"))
            opts->device = CR_DEVICE_CUDA;
          else
            return usage_error ("--device must be cpu or cuda, not '%s'", value);
        }
    }
  if (!opts->file)
    return usage_error ("no script given (FILE.py, or - for stdin)");
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

static char *
read_stdin (gsize *out_len)
{
  GString *s = g_string_new (NULL);
  char buf[65536];
  size_t n;
  while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
    g_string_append_len (s, buf, n);
  *out_len = s->len;
  return g_string_free (s, FALSE);
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

  g_autofree char *source = NULL;
  g_autofree char *filename = NULL;
  gsize length = 0;
  if (strcmp (opts.file, "-") == 0)
    {
      source = read_stdin (&length);
      filename = g_strdup ("<stdin>");
    }
  else
    {
      g_autoptr (GError) error = NULL;
      if (!g_file_get_contents (opts.file, &source, &length, &error))
        {
          g_autofree char *abs = g_canonicalize_filename (opts.file, NULL);
          fprintf (stderr, "chainrule: can't open file '%s': %s\n", abs,
                   error->code == G_FILE_ERROR_NOENT ? "[Errno 2] No such file or directory"
                                                     : error->message);
          return 2;
        }
      /* Python names the main script by its absolute path in tracebacks. */
      filename = g_canonicalize_filename (opts.file, NULL);
    }
  /* A notebook runs as its script with cell markers, cell by cell. */
  gboolean notebook = cr_notebook_is_path (opts.file);
  if (notebook)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CrNotebook) parsed = cr_notebook_parse (source, (gssize) length, &error);
      if (!parsed)
        {
          fprintf (stderr, "chainrule: can't read the notebook '%s': %s\n", filename, error->message);
          return 2;
        }
      g_free (source);
      source = cr_notebook_to_script (parsed);
      length = strlen (source);
    }

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
  /* The syntax tree is held to the memory budget too, though never to less
   * than 64 MiB: a budget sized for tiny tensors still parses a script. */
  CrParseOptions parse_options = {
    .cancel_flag = &cancel_flag,
    .max_memory = MAX (cr_memory_get_limit (), (gsize) 64 << 20),
  };
  g_autoptr (CrNotebookProgram) cells = NULL;
  g_autoptr (CrAstModule) module = NULL;
  if (notebook)
    {
      cells = cr_notebook_program_new (source, (gssize) length, filename, &parse_options, &span,
                                       &parse_error);
      if (cells)
        module = g_steal_pointer (&cells->module);
    }
  else
    module = cr_parse_with_options (source, (gssize) length, filename, &parse_options, &span,
                                    &parse_error);
  if (!module)
    {
      cr_time_limit_disarm ();
      CrException code = parse_error->domain == CR_LANG_ERROR
                         ? (CrException) parse_error->code : CR_EXC_SYNTAX_ERROR;
      g_autofree char *text = NULL;
      if (code == CR_EXC_SYNTAX_ERROR || code == CR_EXC_INDENTATION_ERROR || code == CR_EXC_TAB_ERROR)
        text = cr_format_syntax_error (filename, source, &span, cr_exception_name (code),
                                       parse_error->message);
      else if (parse_error->message[0] == '\0')
        text = g_strdup_printf ("%s\n", cr_exception_name (code));   /* KeyboardInterrupt, MemoryError */
      else
        text = g_strdup_printf ("%s: %s\n", cr_exception_name (code), parse_error->message);
      fflush (stdout);
      fputs (text, stderr);
      if (opts.record)
        {
          /* Nothing ran: the record holds the script and why it did not run. */
          g_autoptr (CrRunRecord) record = cr_run_record_new (filename, source);
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
    cr_interp_set_cells (interp, (const CrScriptCell *) (gpointer) cells->cells->data,
                         cells->cells->len);
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
        record = cr_run_record_new (filename, source);
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
