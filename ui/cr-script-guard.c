/* cr-script-guard.c — the window's side of the crash guard
 * (cr-script-guard.h): the server and its protocol (cr-guard-protocol.h),
 * the one-process child as a fallback, and what a child's end means. The
 * server and the child are app/cr-guard-server.c and app/cr-guard-command.c. */
#define _GNU_SOURCE   /* memfd_create, pipe2, MSG_CMSG_CLOEXEC */
#include "cr-script-guard.h"

#include "cr-guard-protocol.h"
#include "cr-guard-result.h"
#include "cr-storage.h"

#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* How much of the child's stderr is kept: enough for a sanitizer's report or
 * a traceback, however much a crashing engine writes. */
#define STDERR_TAIL_BYTES (8 * 1024)
/* The error shows this many of its last lines. */
#define STDERR_TAIL_LINES 20
/* How long after its time limit a child that did not stop is killed: the
 * child's own hard exit comes 2 s after it (app/cr-time-limit.h). */
#define OVERDUE_S 4
/* How often the wait looks at the cancel flag. */
#define POLL_MS 2
/* A server that failed to start this many times is not started again. */
#define SERVER_MAX_STARTS_FAILED 3

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

/* The child dies with the thread that waits for it (the window's worker), so
 * that a window killed by anything never leaves a run behind. */
static void
child_setup (gpointer user_data)
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

static void
keep_tail (GString    *tail,
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
  keep_tail (watch->tail, watch->buffer, (gsize) n);
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

typedef struct {
  gboolean cancelled;     /* killed for *cancel_flag */
  gboolean overdue;       /* killed past its time limit */
  gboolean signaled;
  int      term_sig;
  int      exit_status;
  GString *tail;          /* the end of its stderr */
  int      answer_fd;     /* the memory file it wrote its answer to, or -1 */
  GBytes  *answer;        /* its whole answer, when read before it ended; or NULL */
} ChildEnd;

/* The answer the child wrote to fd, or NULL when it wrote none. */
static GBytes *
read_answer (int fd)
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
verdict_of (const ChildEnd *end,
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
      g_autoptr (GBytes) answer = end->answer ? g_bytes_ref (end->answer) : read_answer (end->answer_fd);
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

/* ---- the server --------------------------------------------------------------------------- */

typedef struct {
  GMutex       lock;          /* held by the run that uses the server, and to start or stop it */
  GSubprocess *process;       /* NULL: none */
  int          socket_fd;     /* the window's end, -1: none */
  guint        starts_failed;
  gint         pid;           /* the process's id, 0: none; atomic, read without the lock */
  gboolean     exit_pending;  /* the last child's answer was taken before it ended: the
                               * server's reply for it is still to be read */
} Server;

static Server server = { .socket_fd = -1 };
static guint  n_answers, n_server_answers;   /* atomic */

guint
cr_script_guard_get_n_answers (gboolean from_server)
{
  return (guint) g_atomic_int_get (from_server ? &n_server_answers : &n_answers);
}

/* The window's CPU threads, which the server's children get back after the
 * fork: OMP_NUM_THREADS or OPENBLAS_NUM_THREADS, else every core. */
static guint
window_threads (void)
{
  const char *names[] = { "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      guint64 n = 0;
      const char *value = g_getenv (names[i]);
      if (value && g_ascii_string_to_unsigned (value, 10, 1, 1024, &n, NULL))
        return (guint) n;
    }
  return g_get_num_processors ();
}

/* With server.lock held. */
static void
server_drop (void)
{
  if (server.socket_fd >= 0)
    close (server.socket_fd);
  server.socket_fd = -1;
  if (server.process)
    g_subprocess_force_exit (server.process);
  g_clear_object (&server.process);
  g_atomic_int_set (&server.pid, 0);
  server.exit_pending = FALSE;
}

void
cr_script_guard_server_start (void)
{
  const char *runner = cr_script_guard_get_runner ();
  if (!runner || !g_mutex_trylock (&server.lock))
    return;   /* A run uses it: it runs. */
  if (server.socket_fd >= 0 || server.starts_failed >= SERVER_MAX_STARTS_FAILED)
    {
      g_mutex_unlock (&server.lock);
      return;
    }
  int ends[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    {
      server.starts_failed++;
      g_mutex_unlock (&server.lock);
      return;
    }
  /* Its stderr is the window's, for its own rare complaints; its children
   * write theirs to a pipe each. */
  g_autoptr (GSubprocessLauncher) launcher
    = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  /* It forks: no thread may run in it before (each child sets its own). */
  g_subprocess_launcher_setenv (launcher, "OPENBLAS_NUM_THREADS", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "OMP_NUM_THREADS", "1", TRUE);
  g_subprocess_launcher_take_fd (launcher, ends[1], CR_GUARD_SERVE_FD);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  const char *argv[] = { runner, "guard-run", "--serve", NULL };
  g_autoptr (GError) error = NULL;
  server.process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (!server.process)
    {
      g_debug ("no crash guard server: cannot start %s: %s", runner, error->message);
      close (ends[0]);
      server.starts_failed++;
    }
  else
    {
      server.socket_fd = ends[0];
      const char *id = g_subprocess_get_identifier (server.process);
      g_atomic_int_set (&server.pid, id ? (gint) g_ascii_strtoll (id, NULL, 10) : 0);
    }
  g_mutex_unlock (&server.lock);
}

GPid
cr_script_guard_server_pid (void)
{
  return (GPid) g_atomic_int_get (&server.pid);
}

void
cr_script_guard_server_stop (void)
{
  g_mutex_lock (&server.lock);
  server_drop ();
  g_mutex_unlock (&server.lock);
}

static gboolean
send_all (int         fd,
          const void *data,
          gsize       length)
{
  const guint8 *bytes = data;
  for (gsize done = 0; done < length;)
    {
      ssize_t n = send (fd, bytes + done, length - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += (gsize) n;
    }
  return TRUE;
}

/* The RUN request: the header with the answer's and stderr's descriptors,
 * then the file name and the script. */
static gboolean
send_run (int                   socket_fd,
          const CrGuardRequest *request,
          int                   answer_fd,
          int                   stderr_fd,
          const char           *filename,
          const char           *source)
{
  union {
    char           buffer[CMSG_SPACE (2 * sizeof (int))];
    struct cmsghdr align;
  } control;
  memset (&control, 0, sizeof control);
  struct iovec iov = { (void *) request, sizeof *request };
  struct msghdr message = {
    .msg_iov = &iov,
    .msg_iovlen = 1,
    .msg_control = control.buffer,
    .msg_controllen = sizeof control.buffer,
  };
  struct cmsghdr *c = CMSG_FIRSTHDR (&message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (2 * sizeof (int));
  int fds[2] = { answer_fd, stderr_fd };
  memcpy (CMSG_DATA (c), fds, sizeof fds);
  ssize_t n;
  do
    n = sendmsg (socket_fd, &message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return FALSE;
  return send_all (socket_fd, (const guint8 *) request + n, sizeof *request - (gsize) n)
         && send_all (socket_fd, filename, request->filename_length)
         && send_all (socket_fd, source, request->source_length);
}

/* Reads the server's next reply, waiting at most timeout_ms for it to
 * start: 1 read, 0 none yet, -1 the server is gone or spoke nonsense. */
static int
read_reply (CrGuardReply *reply,
            int           timeout_ms)
{
  gsize got = 0;
  while (got < sizeof *reply)
    {
      struct pollfd poll_socket = { .fd = server.socket_fd, .events = POLLIN };
      int ready = poll (&poll_socket, 1, got == 0 ? timeout_ms : 1000);
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready < 0)
        return -1;
      if (ready == 0)
        return got == 0 ? 0 : -1;
      ssize_t n = recv (server.socket_fd, (guint8 *) reply + got, sizeof *reply - got, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      got += (gsize) n;
    }
  return reply->magic == CR_GUARD_REPLY_MAGIC ? 1 : -1;
}

/* The reply for a child whose answer was taken early: it is ending, or
 * has ended. One still there after a second is killed. FALSE: the server
 * is gone. */
static gboolean
settle_pending_exit (void)
{
  if (!server.exit_pending)
    return TRUE;
  CrGuardReply reply;
  int got = read_reply (&reply, 1000);
  if (got == 0)
    {
      CrGuardRequest cancel = { .magic = CR_GUARD_REQUEST_MAGIC, .kind = CR_GUARD_REQUEST_CANCEL };
      if (send_all (server.socket_fd, &cancel, sizeof cancel))
        got = read_reply (&reply, 5000);
    }
  if (got != 1)
    return FALSE;
  server.exit_pending = FALSE;
  return TRUE;
}

/* Runs the script on the server, filling end. FALSE when the server could
 * not run it (busy, gone, or it could not fork): nothing was run. */
static gboolean
run_on_server (const char   *source,
               const char   *filename,
               CrDeviceType  device,
               guint         timeout_s,
               const gint   *cancel_flag,
               ChildEnd     *end)
{
  if (!g_mutex_trylock (&server.lock))
    return FALSE;   /* Another window's run has it. */
  if (server.socket_fd >= 0 && !settle_pending_exit ())
    server_drop ();
  if (server.socket_fd < 0)
    {
      g_mutex_unlock (&server.lock);
      return FALSE;
    }
  int answer_fd = memfd_create ("chainrule-answer", MFD_CLOEXEC);
  int stderr_pipe[2] = { -1, -1 };
  if (answer_fd < 0 || pipe2 (stderr_pipe, O_CLOEXEC) != 0)
    {
      if (answer_fd >= 0)
        close (answer_fd);
      g_mutex_unlock (&server.lock);
      return FALSE;
    }
  CrGuardRequest request = {
    .magic = CR_GUARD_REQUEST_MAGIC,
    .kind = CR_GUARD_REQUEST_RUN,
    .timeout_s = timeout_s,
    .device = device,
    .max_memory = cr_memory_get_limit (),
    .threads = window_threads (),
    .flags = g_strcmp0 (g_getenv (CR_SCRIPT_GUARD_TEST_CRASH_ENV), "1") == 0
             ? CR_GUARD_REQUEST_TEST_CRASH : 0,
    .filename_length = (guint32) strlen (filename),
    .source_length = (guint32) strlen (source),
  };
  gboolean sent = send_run (server.socket_fd, &request, answer_fd, stderr_pipe[1], filename, source);
  close (stderr_pipe[1]);
  if (!sent)
    {
      close (answer_fd);
      close (stderr_pipe[0]);
      server_drop ();
      g_mutex_unlock (&server.lock);
      return FALSE;
    }

  /* A backstop only: the child ends itself at timeout_s. */
  gint64 deadline = g_get_monotonic_time () + ((gint64) timeout_s + OVERDUE_S) * G_USEC_PER_SEC;
  gboolean replied = FALSE, stderr_done = FALSE, lost = FALSE, no_child = FALSE, asked = FALSE;
  gboolean early = FALSE;
  CrGuardReply reply = { 0 };
  gsize reply_got = 0;
  guint8 buffer[4096];
  while (!lost && !no_child && !early && (!replied || !stderr_done))
    {
      struct pollfd polls[2] = {
        { .fd = replied ? -1 : server.socket_fd, .events = POLLIN },
        { .fd = stderr_done ? -1 : stderr_pipe[0], .events = POLLIN },
      };
      int ready = poll (polls, 2, POLL_MS);
      if (ready < 0 && errno != EINTR)
        {
          lost = TRUE;
          break;
        }
      if (!asked && !replied)
        {
          end->cancelled = cancel_flag && g_atomic_int_get (cancel_flag) != 0;
          end->overdue = !end->cancelled && g_get_monotonic_time () > deadline;
          if (end->cancelled || end->overdue)
            {
              CrGuardRequest cancel = { .magic = CR_GUARD_REQUEST_MAGIC, .kind = CR_GUARD_REQUEST_CANCEL };
              asked = TRUE;
              if (!send_all (server.socket_fd, &cancel, sizeof cancel))
                lost = TRUE;
            }
        }
      if (ready <= 0)
        continue;
      if (polls[1].revents & (POLLIN | POLLHUP | POLLERR))
        {
          ssize_t n = read (stderr_pipe[0], buffer, sizeof buffer);
          if (n > 0)
            keep_tail (end->tail, buffer, (gsize) n);
          else if (n == 0 || errno != EINTR)
            {
              stderr_done = TRUE;
              /* The child closes its stderr once its answer is written, then
               * ends: the window takes the answer while it does. */
              if (!replied && !asked)
                {
                  GBytes *answer = read_answer (answer_fd);
                  if (answer && cr_guard_result_is_complete (g_bytes_get_data (answer, NULL),
                                                              g_bytes_get_size (answer)))
                    {
                      end->answer = answer;
                      early = TRUE;
                    }
                  else if (answer)
                    g_bytes_unref (answer);
                }
            }
        }
      if (polls[0].revents & (POLLIN | POLLHUP | POLLERR))
        {
          ssize_t n = recv (server.socket_fd, (guint8 *) &reply + reply_got, sizeof reply - reply_got, 0);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              lost = TRUE;
              break;
            }
          reply_got += (gsize) n;
          if (reply_got < sizeof reply)
            continue;
          if (reply.magic != CR_GUARD_REPLY_MAGIC)
            lost = TRUE;
          else if (reply.kind == CR_GUARD_REPLY_NO_CHILD)
            no_child = TRUE;
          else
            replied = TRUE;
        }
    }
  close (stderr_pipe[0]);
  if (early)
    {
      /* Its reply may have come in the same wake-up. */
      server.exit_pending = !replied;
      g_mutex_unlock (&server.lock);
      end->exit_status = CR_SCRIPT_GUARD_EXIT_RAN;
      end->answer_fd = answer_fd;
      return TRUE;
    }
  if (lost)
    {
      /* Its child died with it (PR_SET_PDEATHSIG); the next edit starts another. */
      g_debug ("crash guard: the server is gone");
      server_drop ();
    }
  g_mutex_unlock (&server.lock);
  if (lost || no_child)
    {
      close (answer_fd);
      end->cancelled = end->overdue = FALSE;
      g_string_truncate (end->tail, 0);
      return FALSE;
    }
  end->signaled = WIFSIGNALED (reply.wait_status);
  end->term_sig = end->signaled ? WTERMSIG (reply.wait_status) : 0;
  end->exit_status = WIFEXITED (reply.wait_status) ? WEXITSTATUS (reply.wait_status) : -1;
  end->answer_fd = answer_fd;
  return TRUE;
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
                    ChildEnd     *end)
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
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);

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
  GSource *tick = g_timeout_source_new (POLL_MS);
  g_source_set_callback (tick, on_tick, NULL, NULL);
  g_source_attach (tick, context);

  /* A backstop only: the child ends itself at timeout_s. */
  gint64 deadline = g_get_monotonic_time () + ((gint64) timeout_s + OVERDUE_S) * G_USEC_PER_SEC;
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
  ChildEnd end = { .tail = g_string_new (NULL), .answer_fd = -1 };
  gboolean on_server = run_on_server (source, filename, device, timeout_s, cancel_flag, &end);
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
