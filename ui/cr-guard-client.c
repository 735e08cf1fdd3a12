/* cr-guard-client.c — the window's end of the crash guard's server
 * (cr-guard-protocol.h): started with the window, restarted when it dies,
 * and asked to run one script at a time. */
#define _GNU_SOURCE   /* memfd_create, pipe2 */
#include "cr-script-guard.h"
#include "cr-script-guard-private.h"

#include "cr-guard-protocol.h"
#include "cr-guard-result.h"
#include "cr-storage.h"

#include <gio/gio.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A server that failed to start, or was lost, this many times is not
 * started again: the guard's children then start as processes of their own. */
#define SERVER_MAX_FAILURES 5

typedef struct {
  GMutex       lock;          /* held by the run that uses the server, and to start or stop it */
  GSubprocess *process;       /* NULL: none */
  int          socket_fd;     /* the window's end, -1: none */
  guint        failures;      /* starts failed and servers lost */
  gint         pid;           /* the process's id, 0: none; atomic, read without the lock */
  gboolean     exit_pending;  /* the last child's answer was taken before it ended: the
                               * server's reply for it is still to be read */
} Server;

static Server server = { .socket_fd = -1 };

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

/* Ends the server, with server.lock held. */
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

/* The server went away (or stopped making sense): dropped, and counted. */
static void
server_lost (void)
{
  g_debug ("crash guard: the server is gone");
  server.failures++;
  server_drop ();
}

/* Each run's record is decoded here on a worker, and the record it
 * replaces freed on another (ui/cr-window-run.c). With glibc's fast bins
 * those tens of thousands of frees were only put aside, and the next
 * decode's first big allocation paid for tidying them: about 4 ms of the
 * MLP example's 8 on the edit's path. Without them, freeing does its own
 * tidying, off that path. Process-wide, once. */
static void
free_small_blocks_at_once (void)
{
#ifdef __GLIBC__
  static gsize done;
  if (g_once_init_enter (&done))
    {
      mallopt (M_MXFAST, 0);
      g_once_init_leave (&done, 1);
    }
#endif
}

void
cr_script_guard_server_start (void)
{
  free_small_blocks_at_once ();
  const char *runner = cr_script_guard_get_runner ();
  if (!runner || !g_mutex_trylock (&server.lock))
    return;   /* A run uses it: it runs. */
  if (server.socket_fd >= 0 || server.failures >= SERVER_MAX_FAILURES)
    {
      g_mutex_unlock (&server.lock);
      return;
    }
  int ends[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    {
      server.failures++;
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
  /* GLib 2.74's slice allocator cost a run that records thousands of
   * arrays and strings more than malloc does (the MLP example's run and
   * answer: about 18 against 16 ms of CPU); its children never free them. */
  g_subprocess_launcher_setenv (launcher, "G_SLICE", "always-malloc", TRUE);
  g_subprocess_launcher_take_fd (launcher, ends[1], CR_GUARD_SERVE_FD);
  g_subprocess_launcher_set_child_setup (launcher, cr_script_guard_child_setup, NULL, NULL);
  const char *argv[] = { runner, "guard-run", "--serve", NULL };
  g_autoptr (GError) error = NULL;
  server.process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (!server.process)
    {
      g_debug ("no crash guard server: cannot start %s: %s", runner, error->message);
      close (ends[0]);
      server.failures++;
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
  const int fds[2] = { answer_fd, stderr_fd };
  return cr_guard_send_request (socket_fd, request, fds)
         && cr_guard_send_all (socket_fd, filename, request->filename_length)
         && cr_guard_send_all (socket_fd, source, request->source_length);
}

/* Reads the server's next reply, waiting at most timeout_ms for it to
 * start: 1 read, 0 none yet, -1 the server is gone or spoke nonsense. */
static int
read_reply (CrGuardReply *reply,
            int           timeout_ms)
{
  int got = cr_guard_read_exact (server.socket_fd, reply, sizeof *reply, timeout_ms, 1000);
  return got == 1 && reply->magic != CR_GUARD_REPLY_MAGIC ? -1 : got;
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
      if (cr_guard_send_all (server.socket_fd, &cancel, sizeof cancel))
        got = read_reply (&reply, 5000);
    }
  if (got != 1)
    return FALSE;
  server.exit_pending = FALSE;
  return TRUE;
}

gboolean
cr_guard_server_run (const char      *source,
                     const char      *filename,
                     CrDeviceType     device,
                     guint            timeout_s,
                     const gint      *cancel_flag,
                     CrGuardChildEnd *end)
{
  if (!g_mutex_trylock (&server.lock))
    return FALSE;   /* Another window's run has it. */
  if (server.socket_fd >= 0 && !settle_pending_exit ())
    server_lost ();
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
      server_lost ();
      g_mutex_unlock (&server.lock);
      return FALSE;
    }

  /* A backstop only: the child ends itself at timeout_s. */
  gint64 deadline = g_get_monotonic_time () + ((gint64) timeout_s + CR_SCRIPT_GUARD_OVERDUE_S) * G_USEC_PER_SEC;
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
      int ready = poll (polls, 2, CR_SCRIPT_GUARD_POLL_MS);
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
              if (!cr_guard_send_all (server.socket_fd, &cancel, sizeof cancel))
                lost = TRUE;
            }
        }
      if (ready <= 0)
        continue;
      if (polls[1].revents & (POLLIN | POLLHUP | POLLERR))
        {
          ssize_t n = read (stderr_pipe[0], buffer, sizeof buffer);
          if (n > 0)
            cr_script_guard_keep_tail (end->tail, buffer, (gsize) n);
          else if (n == 0 || errno != EINTR)
            {
              stderr_done = TRUE;
              /* The child closes its stderr once its answer is written, then
               * ends: the window takes the answer while it does. */
              if (!replied && !asked)
                {
                  GBytes *answer = cr_script_guard_read_answer (answer_fd);
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
      server_lost ();
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
