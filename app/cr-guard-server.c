/* cr-guard-server.c — the crash guard's server (cr-guard-server.h), one
 * thread: a poll() over the window's socket and a signalfd for SIGCHLD.
 *
 * A spare child is forked ahead of the next edit: while the person reads
 * the last run, it makes the memory its run will need (a run that records
 * megabytes spent a quarter of its time in the kernel, giving its new pages
 * their first touch) and waits on a socket of its own. A RUN request is
 * passed on to it as it came (header, descriptors, file name, script), so
 * the edit costs neither a fork nor those page faults. Without a spare
 * (the first run, or one that died) a child is forked for the request. */
#define _GNU_SOURCE   /* MSG_CMSG_CLOEXEC */
#include "cr-config.h"
#include "cr-guard-server.h"

#include "cr-guard-command.h"
#include "cr-guard-protocol.h"
#include "cr-kernels.h"
#include "cr-script-guard.h"
#include "cr-script-run.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run once before the first fork, so that every child finds the prelude's
 * common modules parsed and the op tables set up (shared copy-on-write). */
static const char warm_up_script[] =
  "try:\n    import torch\nexcept Exception:\n    pass\n"
  "try:\n    import torch.nn as nn\n    import torch.nn.functional as F\nexcept Exception:\n    pass\n"
  "try:\n    import torch.optim as optim\nexcept Exception:\n    pass\n"
  "try:\n    import torch.utils.data\nexcept Exception:\n    pass\n"
  "try:\n    import math\n    import random\nexcept Exception:\n    pass\n"
  "try:\n"
  "    x = torch.ones(2, requires_grad=True)\n"
  "    (x * x + 1).sum().backward()\n"
  "except Exception:\n    pass\n";

/* Reads exactly length bytes, however long they take; FALSE at the end
 * of the stream or on an error. */
static gboolean
read_all (int    fd,
          void  *buffer,
          gsize  length)
{
  return cr_guard_read_exact (fd, buffer, length, -1, -1) == 1;
}

static gboolean
send_reply (int    socket_fd,
            guint  kind,
            int    wait_status,
            pid_t  pid)
{
  CrGuardReply reply = { CR_GUARD_REPLY_MAGIC, kind, wait_status, pid };
  for (;;)
    {
      ssize_t n = send (socket_fd, &reply, sizeof reply, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      return n == (ssize_t) sizeof reply;
    }
}

/* Receives a request's header and its descriptors (fds[0..1], -1 when not
 * sent). FALSE when the window has gone or sent nonsense. */
static gboolean
receive_request (int             socket_fd,
                 CrGuardRequest *request,
                 int             fds[2])
{
  fds[0] = fds[1] = -1;
  union {
    char           buffer[CMSG_SPACE (2 * sizeof (int))];
    struct cmsghdr align;
  } control;
  struct iovec iov = { request, sizeof *request };
  struct msghdr message = {
    .msg_iov = &iov,
    .msg_iovlen = 1,
    .msg_control = control.buffer,
    .msg_controllen = sizeof control.buffer,
  };
  ssize_t n;
  do
    n = recvmsg (socket_fd, &message, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return FALSE;
  for (struct cmsghdr *c = CMSG_FIRSTHDR (&message); c; c = CMSG_NXTHDR (&message, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        gsize count = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        int received[2] = { -1, -1 };
        memcpy (received, CMSG_DATA (c), MIN (count, 2) * sizeof (int));
        for (gsize i = 0; i < count && i < 2; i++)
          fds[i] = received[i];
      }
  /* The rest of the header, when the stream cut it. */
  if ((gsize) n < sizeof *request
      && !read_all (socket_fd, (guint8 *) request + n, sizeof *request - (gsize) n))
    return FALSE;
  return request->magic == CR_GUARD_REQUEST_MAGIC;
}

static void
close_fds (int fds[2])
{
  for (int i = 0; i < 2; i++)
    if (fds[i] >= 0)
      {
        close (fds[i]);
        fds[i] = -1;
      }
}

/* In the forked child: runs the script and leaves. Never returns. */
G_GNUC_NORETURN static void
run_child (const CrGuardRequest *request,
           char                 *filename,
           char                 *source,
           int                   fds[2],
           pid_t                 server)
{
  /* Nothing outlives the server, which nothing outlives the window. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != server)
    _exit (1);
  sigset_t none;
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  signal (SIGINT, SIG_DFL);
  if (fds[1] >= 0)
    {
      dup2 (fds[1], STDERR_FILENO);
      close (fds[1]);
    }
  /* OpenBLAS and our pool were kept to one thread until the fork. The
   * count as cr_threads_init() sets it: OpenBLAS's new workers are stopped
   * until a product needs them, rather than spinning a tenth of a second
   * on the window's cores at every run. */
  if (request->threads > 1)
    {
      g_autofree char *threads = g_strdup_printf ("%u", request->threads);
      g_setenv ("OMP_NUM_THREADS", threads, TRUE);
      cr_threads_init ();
    }
  CrGuardRunOptions options = {
    .filename = filename,
    .device = request->device == CR_DEVICE_CUDA ? CR_DEVICE_CUDA : CR_DEVICE_CPU,
    .timeout_s = request->timeout_s,
    .max_memory = (gsize) request->max_memory,
    .result_fd = fds[0],
    .test_crash = (request->flags & CR_GUARD_REQUEST_TEST_CRASH) != 0,
    .exit_after_answer = TRUE,
  };
  int status = cr_guard_run_script (source, request->source_length, &options);
  fflush (stderr);
  /* No teardown: the process is gone in a moment, and its memory with it. */
  _exit (status);
}

/* Starts a child for a RUN request whose header is read; its file name and
 * script follow on the socket. The child's pid, or 0 when none started;
 * -1 when the window has gone. */
static pid_t
start_run (int                   socket_fd,
           const CrGuardRequest *request,
           int                   fds[2])
{
  g_autofree char *filename = g_malloc ((gsize) request->filename_length + 1);
  g_autofree char *source = g_malloc ((gsize) request->source_length + 1);
  if (!read_all (socket_fd, filename, request->filename_length)
      || !read_all (socket_fd, source, request->source_length))
    return -1;
  filename[request->filename_length] = '\0';
  source[request->source_length] = '\0';
  pid_t server = getpid ();
  fflush (stderr);
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (socket_fd);
      run_child (request, filename, source, fds, server);
    }
  return pid > 0 ? pid : 0;
}

/* ---- the spare child ---------------------------------------------------------------------- */

/* Memory a spare makes ready: what the last run took beyond the server's
 * own, at most SPARE_PREFAULT_MAX; SPARE_PREFAULT_FIRST before any run. */
#define SPARE_PREFAULT_FIRST (8 * 1024 * 1024)
#define SPARE_PREFAULT_MAX   (64 * 1024 * 1024)
/* Made ready a step at a time, looking for a request between steps: an
 * edit that comes early waits for one step, not for all of them. */
#define SPARE_PREFAULT_STEP  (1024 * 1024)

typedef struct {
  pid_t pid;      /* 0: none */
  int   socket;   /* the server's end of its socket pair, -1: none */
} Spare;

static void
spare_forget (Spare *spare)
{
  if (spare->socket >= 0)
    close (spare->socket);
  spare->socket = -1;
  spare->pid = 0;
}

/* In the spare: gives bytes of heap their first touch, so that the run
 * allocates from pages already there. Blocks up to SPARE_PREFAULT_MAX come
 * from the heap too, and the heap is not given back when they are freed.
 * Stops early when a request is waiting on socket_fd. */
static void
spare_prefault (int   socket_fd,
                gsize bytes)
{
  mallopt (M_MMAP_THRESHOLD, SPARE_PREFAULT_MAX);
  mallopt (M_TRIM_THRESHOLD, 2 * SPARE_PREFAULT_MAX);
  if (bytes == 0)
    return;
  guint8 *block = malloc (bytes);
  if (!block)
    return;
  long page = sysconf (_SC_PAGESIZE);
  gsize page_size = page > 0 ? (gsize) page : 4096;
  for (gsize at = 0; at < bytes; at += SPARE_PREFAULT_STEP)
    {
      gsize end = MIN (bytes, at + SPARE_PREFAULT_STEP);
      for (gsize p = at; p < end; p += page_size)
        ((volatile guint8 *) block)[p] = 0;
      struct pollfd waiting = { .fd = socket_fd, .events = POLLIN };
      if (poll (&waiting, 1, 0) > 0)
        break;
    }
  free (block);
}

/* Forks a spare that makes prefault bytes ready, then waits for one RUN
 * request on its socket and runs it as run_child() does. FALSE when it
 * could not be started. */
static gboolean
spare_start (Spare *spare,
             int    window_socket,
             int    signal_fd,
             gsize  prefault)
{
  int pair[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return FALSE;
  pid_t server = getpid ();
  fflush (stderr);
  pid_t pid = fork ();
  if (pid < 0)
    {
      close (pair[0]);
      close (pair[1]);
      return FALSE;
    }
  if (pid == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (getppid () != server)
        _exit (1);
      close (window_socket);
      close (signal_fd);
      close (pair[0]);
      prctl (PR_SET_NAME, CR_GUARD_SPARE_NAME);
      spare_prefault (pair[1], prefault);
      CrGuardRequest request;
      int fds[2];
      if (!receive_request (pair[1], &request, fds) || request.kind != CR_GUARD_REQUEST_RUN)
        _exit (0);
      char *filename = g_malloc ((gsize) request.filename_length + 1);
      char *source = g_malloc ((gsize) request.source_length + 1);
      if (!read_all (pair[1], filename, request.filename_length)
          || !read_all (pair[1], source, request.source_length))
        _exit (0);
      filename[request.filename_length] = '\0';
      source[request.source_length] = '\0';
      close (pair[1]);
      prctl (PR_SET_NAME, "chainrule");
      run_child (&request, filename, source, fds, server);
    }
  close (pair[1]);
  spare->pid = pid;
  spare->socket = pair[0];
  return TRUE;
}

/* Passes a RUN request (its header read, both descriptors received) on to
 * the spare: the header with the descriptors, then its file name and
 * script, read from the window's socket as they are sent on. The spare's
 * pid, now the running child; 0 when the spare could not take it (it is
 * then killed and forgotten, and nothing more was read); -1 when the
 * window has gone. */
static pid_t
spare_take (Spare                *spare,
            int                   window_socket,
            const CrGuardRequest *request,
            int                   fds[2])
{
  if (!cr_guard_send_request (spare->socket, request, fds))
    {
      kill (spare->pid, SIGKILL);
      spare_forget (spare);
      return 0;
    }
  pid_t pid = spare->pid;
  /* The file name and the script, a buffer at a time. A spare that dies
   * on the way is told as any child's crash; what did not reach it is
   * still read, so that the window's stream stays whole. */
  guint8 buffer[64 * 1024];
  gsize left = (gsize) request->filename_length + request->source_length;
  gboolean reaches = TRUE;
  while (left > 0)
    {
      gsize chunk = MIN (left, sizeof buffer);
      if (!read_all (window_socket, buffer, chunk))
        {
          kill (pid, SIGKILL);
          spare_forget (spare);
          return -1;
        }
      reaches = reaches && cr_guard_send_all (spare->socket, buffer, chunk);
      left -= chunk;
    }
  close (spare->socket);
  spare->socket = -1;
  spare->pid = 0;
  return pid;
}

/* What the next spare makes ready, from the last run's peak (KiB, as
 * getrusage() gives it). */
static gsize
spare_prefault_after (long child_max_rss_kib)
{
  struct rusage self;
  long server_kib = getrusage (RUSAGE_SELF, &self) == 0 ? self.ru_maxrss : 0;
  if (child_max_rss_kib <= server_kib)
    return 0;
  return MIN ((gsize) (child_max_rss_kib - server_kib) * 1024, (gsize) SPARE_PREFAULT_MAX);
}

int
cr_guard_serve (int socket_fd)
{
  /* Ctrl-C in the window's terminal is the window's business. */
  signal (SIGINT, SIG_IGN);
  sigset_t child_signal;
  sigemptyset (&child_signal);
  sigaddset (&child_signal, SIGCHLD);
  sigprocmask (SIG_BLOCK, &child_signal, NULL);
  int signal_fd = signalfd (-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0)
    {
      fprintf (stderr, "chainrule guard-run --serve: no signalfd: %s\n", g_strerror (errno));
      return 1;
    }

  /* Warm up: what every child would do first. */
  {
    gint never = 0;
    CrInterpOptions options = { .cancel_flag = &never };
    CrScriptRun run;
    cr_script_run_record_only (warm_up_script, -1, "<warm-up>", &options, &run);
    if (run.message)
      g_debug ("guard server: warm-up: %s", run.message);
    cr_script_run_clear (&run);
  }

  pid_t child = 0;
  gboolean window_gone = FALSE;
  Spare spare = { 0, -1 };
  spare_start (&spare, socket_fd, signal_fd, SPARE_PREFAULT_FIRST);
  while (!window_gone || child > 0)
    {
      struct pollfd polls[2] = {
        { .fd = window_gone ? -1 : socket_fd, .events = POLLIN },
        { .fd = signal_fd, .events = POLLIN },
      };
      if (poll (polls, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (polls[1].revents & POLLIN)
        {
          struct signalfd_siginfo info;
          while (read (signal_fd, &info, sizeof info) > 0)
            ;
          int wait_status = 0;
          struct rusage usage;
          pid_t pid;
          while ((pid = wait4 (-1, &wait_status, WNOHANG, &usage)) > 0)
            if (pid == child)
              {
                child = 0;
                if (!window_gone)
                  {
                    send_reply (socket_fd, CR_GUARD_REPLY_EXITED, wait_status, pid);
                    /* The next edit's child, made while this run is shown. */
                    if (spare.pid == 0)
                      spare_start (&spare, socket_fd, signal_fd, spare_prefault_after (usage.ru_maxrss));
                  }
              }
            else if (pid == spare.pid)
              spare_forget (&spare);   /* Died waiting: the next run forks its own. */
        }
      if (window_gone || !(polls[0].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      CrGuardRequest request;
      int fds[2];
      if (!receive_request (socket_fd, &request, fds))
        {
          close_fds (fds);
          window_gone = TRUE;
          if (child > 0)
            kill (child, SIGKILL);
          continue;
        }
      if (request.kind == CR_GUARD_REQUEST_CANCEL)
        {
          close_fds (fds);
          if (child > 0)
            kill (child, SIGKILL);
          continue;
        }
      if (request.kind != CR_GUARD_REQUEST_RUN || child > 0)
        {
          /* One run at a time: the window waits for each reply. */
          close_fds (fds);
          window_gone = TRUE;
          if (child > 0)
            kill (child, SIGKILL);
          continue;
        }
      pid_t pid = 0;
      if (spare.pid > 0 && fds[0] >= 0 && fds[1] >= 0)
        pid = spare_take (&spare, socket_fd, &request, fds);
      if (pid == 0)
        pid = start_run (socket_fd, &request, fds);
      close_fds (fds);
      if (pid < 0)
        window_gone = TRUE;
      else if (pid == 0)
        send_reply (socket_fd, CR_GUARD_REPLY_NO_CHILD, 0, 0);
      else
        child = pid;
    }
  if (spare.pid > 0)
    kill (spare.pid, SIGKILL);
  spare_forget (&spare);
  close (signal_fd);
  return 0;
}
