/* cr-script-guard.c — the window's side of the crash guard
 * (cr-script-guard.h): a run on the guard's server (cr-guard-client.c),
 * else in a child of its own, and what a child's end means. The server and
 * the child are app/cr-guard-server.c and app/cr-guard-command.c. */
#define _GNU_SOURCE   /* memfd_create */
#include "cr-script-guard.h"
#include "cr-script-guard-private.h"

#include "cr-guard-result.h"
#include "cr-storage.h"

#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* How much of the child's stderr is kept: enough for a sanitizer's report or
 * a traceback, however much a crashing engine writes. */
#define STDERR_TAIL_BYTES (8 * 1024)
/* The error shows this many of its last lines. */
#define STDERR_TAIL_LINES 20

static char *runner_path;   /* set once, at start-up */

void
cr_script_guard_set_runner (const char *path)
{
  g_free (runner_path);
  runner_path = g_strdup (path);
}

const char *
cr_script_guard_get_runner (void)
{
  if (runner_path)
    return runner_path;
  const char *env = g_getenv ("CHAINRULE_RUNNER");
  return env && *env ? env : NULL;
}

/* The script as the child's stdin: a memory file, so that nothing blocks on
 * a pipe and no SIGPIPE comes if the child dies before reading it. -1 on
 * failure. */
static int
script_fd (const char *source)
{
  int fd = memfd_create ("chainrule-script", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  gsize length = strlen (source);
  for (gsize done = 0; done < length;)
    {
      ssize_t n = write (fd, source + done, length - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          close (fd);
          return -1;
        }
      done += (gsize) n;
    }
  if (lseek (fd, 0, SEEK_SET) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

void
cr_script_guard_child_setup (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

typedef struct {
  GInputStream *stderr_stream;
  GString      *tail;          /* the end of the child's stderr */
  guint8        buffer[4096];
  gboolean      stderr_done;
  gboolean      waited;
} Watch;

void
cr_script_guard_keep_tail (GString    *tail,
                           const void *bytes,
                           gsize       length)
{
  g_string_append_len (tail, bytes, (gssize) length);
  if (tail->len > STDERR_TAIL_BYTES * 2)
    g_string_erase (tail, 0, (gssize) (tail->len - STDERR_TAIL_BYTES));
}

static void
on_stderr_read (GObject      *source_object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Watch *watch = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source_object), result, NULL);
  if (n <= 0)
    {
      watch->stderr_done = TRUE;
      return;
    }
  cr_script_guard_keep_tail (watch->tail, watch->buffer, (gsize) n);
  g_input_stream_read_async (watch->stderr_stream, watch->buffer, sizeof watch->buffer,
                             G_PRIORITY_DEFAULT, NULL, on_stderr_read, watch);
}

static void
on_waited (GObject      *source_object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Watch *watch = user_data;
  g_subprocess_wait_finish (G_SUBPROCESS (source_object), result, NULL);
  watch->waited = TRUE;
}

static gboolean
on_tick (gpointer user_data)
{
  return G_SOURCE_CONTINUE;   /* only wakes the wait up to look at the flag */
}

/* The last lines of the child's stderr, whole lines only. */
static char *
tail_lines (const GString *tail)
{
  g_autofree char *text = g_utf8_make_valid (tail->str, (gssize) tail->len);
  g_strchomp (text);
  const char *start = text;
  if (tail->len >= STDERR_TAIL_BYTES)
    {
      const char *newline = strchr (start, '\n');
      start = newline ? newline + 1 : start;
    }
  const char *p = text + strlen (text);
  guint lines = 0;
  while (p > start && lines < STDERR_TAIL_LINES)
    if (*--p == '\n')
      lines++;
  if (lines == STDERR_TAIL_LINES)
    start = p + 1;
  return g_strdup (start);
}

/* A run that stopped in the child: its traceback, and as message its last
 * line ("TimeoutError: ..."). */
static void
fill_stopped (CrScriptRun *run,
              const char  *traceback,
              const char  *fallback)
{
  run->models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
  run->traceback = *traceback ? g_strconcat (traceback, "\n", NULL)
                              : g_strconcat (fallback, "\n", NULL);
  const char *last = strrchr (traceback, '\n');
  run->message = g_strdup (*traceback ? (last ? last + 1 : traceback) : fallback);
}

static void
fill_crashed (CrScriptRun *run,
              int          signo,
              const char  *child_stderr)
{
  const char *name = g_strsignal (signo);
  run->models = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_graph_model_unref);
  run->message = g_strdup_printf ("The engine crashed on this script (%s): a bug in Chainrule, "
                                  "not in your script", name);
  run->traceback = g_strdup_printf ("The engine crashed on this script (%s): this is a bug in "
                                    "Chainrule, not in your script. The window did not run it.\n"
                                    "%s%s%s",
                                    name, *child_stderr ? "The engine's last words:\n" : "",
                                    child_stderr, *child_stderr ? "\n" : "");
}

/* ---- how a child ended -------------------------------------------------------------------- */


GBytes *
cr_script_guard_read_answer (int fd)
{
  struct stat info;
  if (fd < 0 || fstat (fd, &info) != 0 || info.st_size <= 0)
    return NULL;
  gsize length = (gsize) info.st_size;
  guint8 *data = g_try_malloc (length);
  if (!data)
    return NULL;
  for (gsize done = 0; done < length;)
    {
      ssize_t n = pread (fd, data + done, length - done, (off_t) done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_free (data);
          return NULL;
        }
      done += (gsize) n;
    }
  return g_bytes_new_take (data, length);
}

static CrScriptGuardVerdict
verdict_of (const CrGuardChildEnd *end,
            const char     *runner,
            CrOutputTail   *output,
            char          **dropped_note,
            CrScriptRun    *run)
{
  g_autofree char *child_stderr = tail_lines (end->tail);
  if (end->cancelled)
    return CR_SCRIPT_GUARD_CANCELLED;
  if (end->overdue)
    {
      fill_stopped (run, "", "TimeoutError: the script did not finish within the time limit (--timeout)");
      return CR_SCRIPT_GUARD_TIMED_OUT;
    }
  if (end->signaled)
    {
      fill_crashed (run, end->term_sig, child_stderr);
      return CR_SCRIPT_GUARD_CRASHED;
    }
  int status = end->exit_status;
  if (status == CR_SCRIPT_GUARD_EXIT_RAN || status == CR_SCRIPT_GUARD_EXIT_TIMED_OUT
      || status == CR_SCRIPT_GUARD_EXIT_NO_MEMORY)
    {
      g_autoptr (GBytes) answer = end->answer ? g_bytes_ref (end->answer) : cr_script_guard_read_answer (end->answer_fd);
      g_autoptr (GError) error = NULL;
      if (answer && cr_guard_result_decode (g_bytes_get_data (answer, NULL), g_bytes_get_size (answer),
                                            run, output, dropped_note, &error))
        return CR_SCRIPT_GUARD_RAN;
      if (answer)
        g_debug ("crash guard: its answer is unreadable: %s", error->message);
    }
  /* The child's hard exit: a kernel that did not stop at the time limit. */
  const char *last_line = strrchr (child_stderr, '\n');
  last_line = last_line ? last_line + 1 : child_stderr;
  if (status == 1 && g_str_has_prefix (last_line, "TimeoutError: "))
    status = CR_SCRIPT_GUARD_EXIT_TIMED_OUT;
  switch (status)
    {
    case CR_SCRIPT_GUARD_EXIT_RAN:
      return CR_SCRIPT_GUARD_PASSED;
    case CR_SCRIPT_GUARD_EXIT_TIMED_OUT:
      fill_stopped (run, child_stderr, "TimeoutError: the script did not finish within the time limit (--timeout)");
      return CR_SCRIPT_GUARD_TIMED_OUT;
    case CR_SCRIPT_GUARD_EXIT_NO_MEMORY:
      fill_stopped (run, child_stderr, "MemoryError");
      return CR_SCRIPT_GUARD_OUT_OF_MEMORY;
    default:
      /* Not the engine: the runner could not load its module, or was not
       * a chainrule that knows guard-run. The window runs as without it. */
      g_debug ("no crash guard: %s exited with status %d: %s", runner, status, child_stderr);
      return CR_SCRIPT_GUARD_UNAVAILABLE;
    }
}

static guint n_answers, n_server_answers;   /* atomic */

guint
cr_script_guard_get_n_answers (gboolean from_server)
{
  return (guint) g_atomic_int_get (from_server ? &n_server_answers : &n_answers);
}

/* ---- a child of its own ------------------------------------------------------------------- */

/* Runs the script in a `chainrule guard-run` started for it, filling end.
 * FALSE when it could not be started. */
static gboolean
run_in_own_process (const char   *runner,
                    const char   *source,
                    const char   *filename,
                    CrDeviceType  device,
                    guint         timeout_s,
                    const gint   *cancel_flag,
                    CrGuardChildEnd *end)
{
  int stdin_fd = script_fd (source);
  if (stdin_fd < 0)
    return FALSE;
  int answer_fd = memfd_create ("chainrule-answer", MFD_CLOEXEC);
  int child_answer_fd = answer_fd >= 0 ? dup (answer_fd) : -1;
  if (child_answer_fd < 0)
    {
      close (stdin_fd);
      if (answer_fd >= 0)
        close (answer_fd);
      return FALSE;
    }

  g_autofree char *timeout = g_strdup_printf ("%u", timeout_s);
  g_autofree char *memory = g_strdup_printf ("%" G_GSIZE_FORMAT, cr_memory_get_limit ());
  const char *argv[] = { runner, "guard-run", "--timeout", timeout, "--max-memory", memory,
                         "--device", device == CR_DEVICE_CUDA ? "cuda" : "cpu",
                         "--filename", filename, "--result-fd", "3", NULL };
  g_autoptr (GSubprocessLauncher) launcher
    = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_take_stdin_fd (launcher, stdin_fd);
  g_subprocess_launcher_take_fd (launcher, child_answer_fd, 3);
  g_subprocess_launcher_set_child_setup (launcher, cr_script_guard_child_setup, NULL, NULL);

  /* Waited for in a context of this thread's own: the window's main loop
   * never sees the child. */
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) child = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (!child)
    {
      g_main_context_pop_thread_default (context);
      g_debug ("no crash guard: cannot start %s: %s", runner, error->message);
      close (answer_fd);
      return FALSE;
    }

  Watch watch = { .stderr_stream = g_subprocess_get_stderr_pipe (child), .tail = end->tail };
  g_input_stream_read_async (watch.stderr_stream, watch.buffer, sizeof watch.buffer,
                             G_PRIORITY_DEFAULT, NULL, on_stderr_read, &watch);
  g_subprocess_wait_async (child, NULL, on_waited, &watch);
  GSource *tick = g_timeout_source_new (CR_SCRIPT_GUARD_POLL_MS);
  g_source_set_callback (tick, on_tick, NULL, NULL);
  g_source_attach (tick, context);

  /* A backstop only: the child ends itself at timeout_s. */
  gint64 deadline = g_get_monotonic_time () + ((gint64) timeout_s + CR_SCRIPT_GUARD_OVERDUE_S) * G_USEC_PER_SEC;
  while (!watch.waited || !watch.stderr_done)
    {
      g_main_context_iteration (context, TRUE);
      if (end->cancelled || end->overdue)
        continue;
      end->cancelled = cancel_flag && g_atomic_int_get (cancel_flag) != 0;
      end->overdue = !end->cancelled && g_get_monotonic_time () > deadline;
      if (end->cancelled || end->overdue)
        g_subprocess_force_exit (child);
    }
  g_source_destroy (tick);
  g_source_unref (tick);
  g_main_context_pop_thread_default (context);

  end->signaled = g_subprocess_get_if_signaled (child);
  end->term_sig = end->signaled ? g_subprocess_get_term_sig (child) : 0;
  end->exit_status = end->signaled ? -1 : g_subprocess_get_exit_status (child);
  end->answer_fd = answer_fd;
  return TRUE;
}

CrScriptGuardVerdict
cr_script_guard_run (const char   *source,
                     const char   *filename,
                     CrDeviceType  device,
                     guint         timeout_s,
                     const gint   *cancel_flag,
                     CrOutputTail *output,
                     char        **dropped_note,
                     CrScriptRun  *run)
{
  *dropped_note = NULL;
  const char *runner = cr_script_guard_get_runner ();
  if (!runner)
    return CR_SCRIPT_GUARD_UNAVAILABLE;
  /* The child's budget is the window's. */
  cr_script_run_init_memory_budget ();
  if (!filename)
    filename = "<editor>";
  CrGuardChildEnd end = { .tail = g_string_new (NULL), .answer_fd = -1 };
  gboolean on_server = cr_guard_server_run (source, filename, device, timeout_s, cancel_flag, &end);
  gboolean ran = on_server;
  if (!ran && cancel_flag && g_atomic_int_get (cancel_flag) != 0)
    {
      g_string_free (end.tail, TRUE);
      return CR_SCRIPT_GUARD_CANCELLED;
    }
  ran = ran || run_in_own_process (runner, source, filename, device, timeout_s, cancel_flag,
                                        &end);
  CrScriptGuardVerdict verdict = ran ? verdict_of (&end, runner, output, dropped_note, run)
                                     : CR_SCRIPT_GUARD_UNAVAILABLE;
  if (verdict == CR_SCRIPT_GUARD_RAN)
    {
      g_atomic_int_inc (&n_answers);
      if (on_server)
        g_atomic_int_inc (&n_server_answers);
    }
  if (end.answer_fd >= 0)
    close (end.answer_fd);
  g_clear_pointer (&end.answer, g_bytes_unref);
  g_string_free (end.tail, TRUE);
  return verdict;
}
